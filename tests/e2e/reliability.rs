//! What a reliability campaign found kb doing wrong, each as the
//! state or input that broke it: a full disk, a crash during a checkpoint, a
//! read-only data directory, an unreadable or half-deleted database, two
//! writers at once, limits of `--top` and `--threshold`, bytes that are not
//! UTF-8 in arguments and the environment, escape sequences in documents.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{self, fixture_tree, long_guide, stderr_json, write, Kb};
use serde_json::Value;

/// Real text for a folder of documents: the repository's own manuals,
/// split into files of a few sections each.
fn manual_folder(dir: &Path, files: usize) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sections: Vec<String> = Vec::new();
    for f in ["README.md", "ARCHITECTURE.md"] {
        let text = std::fs::read_to_string(root.join(f)).unwrap();
        for s in text.split("\n## ").filter(|s| s.len() > 200) {
            sections.push(format!("## {s}"));
        }
    }
    for i in 0..files {
        let body: Vec<&str> = (0..3)
            .map(|k| sections[(i * 3 + k) % sections.len()].as_str())
            .collect();
        write(
            &dir.join(format!("manual-{i:03}.md")),
            &format!("# Manual part {i}\n\n{}\n", body.join("\n\n")),
        );
    }
    files
}

fn status(kb: &Kb) -> Value {
    kb.json(&["status", "--format", "json"])
}

fn integrity(db: &Path) -> String {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

/// Runs `cmd` where permissions count: root passes every permission check,
/// so as root kb runs as `nobody` (through setpriv). `None` when that is
/// not possible.
fn unprivileged(cmd: Command) -> Option<Command> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some(cmd);
    }
    if Command::new("setpriv").arg("--version").output().is_err() {
        return None;
    }
    let mut c = Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    Some(c)
}

fn chmod(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn json_error(out: &std::process::Output, exit: i32) -> Value {
    assert_eq!(
        out.status.code(),
        Some(exit),
        "stdout {}\nstderr {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    stderr_json(out)
}

/// A small tmpfs mounted over `dir` for the test's lifetime.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Result<Tmpfs, String> {
        Self::mount_with(dir, &format!("size={size}"))
    }

    /// A tmpfs mounted with these options (`ro,size=1m`).
    fn mount_with(dir: &Path, options: &str) -> Result<Tmpfs, String> {
        std::fs::create_dir_all(dir).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs failed (needs root): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn after_a_full_disk_is_freed_every_committed_document_is_there() {
    let kb = Kb::empty();
    let mount = match Tmpfs::mount(&kb.data_dir(), "20m") {
        Ok(m) => m,
        Err(why) => {
            println!("skipped: the disk-full test needs a tmpfs: {why}");
            return;
        }
    };
    kb.cmd()
        .args(["init", "--model-dir"])
        .arg(common::model_dir())
        .assert()
        .success();
    let docs = kb.home.path().join("docs");
    let files = manual_folder(&docs, 30);
    // Leave about 2 MB: a few documents fit in the write-ahead log (the
    // first vector takes 1.5 MB: sqlite-vec allocates room for 1,024), the
    // checkpoint that copies them into kb.db does not.
    let filler = kb.data_dir().join("filler");
    let free = {
        let out = Command::new("df")
            .args(["--output=avail", "-B1"])
            .arg(kb.data_dir())
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines().nth(1).unwrap().trim().parse::<u64>().unwrap()
    };
    std::fs::write(&filler, vec![0u8; (free - 2_000_000) as usize]).unwrap();

    let out = kb
        .cmd()
        .args(["add", "--quiet", "--format", "json"])
        .arg(&docs)
        .output()
        .unwrap();
    let e = json_error(&out, 2);
    assert_eq!(e["code"], "E_IO", "{e}");
    assert!(e["error"].as_str().unwrap().contains("disk is full"), "{e}");
    // The state that matters: kb.db shorter than its header says, the rest
    // of its pages still in the write-ahead log.
    let main = std::fs::read(kb.db_path()).unwrap();
    let page_size = u16::from_be_bytes([main[16], main[17]]) as usize;
    let pages = u32::from_be_bytes([main[28], main[29], main[30], main[31]]) as usize;
    println!(
        "kb.db: {} bytes, its header says {pages} pages of {page_size}",
        main.len()
    );

    // What SQLite itself sees as committed, on a copy of the files.
    let copy = kb.home.path().join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["kb.db", "kb.db-wal", "kb.db-shm"] {
        let _ = std::fs::copy(kb.data_dir().join(f), copy.join(f));
    }
    let committed: i64 = rusqlite::Connection::open(copy.join("kb.db"))
        .unwrap()
        .query_row("SELECT count(*) FROM documents", [], |r| r.get(0))
        .unwrap();
    assert!(
        committed > 0,
        "nothing was committed before the disk filled"
    );

    std::fs::remove_file(&filler).unwrap();
    let s = status(&kb);
    assert_eq!(s["total_documents"], committed, "{s}");
    assert_eq!(integrity(&kb.db_path()), "ok");
    // And the run continues where it stopped.
    let v = kb.add(&[&docs]);
    assert_eq!(
        v["added"].as_i64().unwrap() + committed,
        files as i64,
        "{v}"
    );
    drop(mount);
}

/// The frames of a write-ahead log: (page number, commit size, page bytes).
fn wal_frames(wal: &[u8]) -> Vec<(u32, u32, &[u8])> {
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let page_size = be(&wal[8..12]) as usize;
    let salts = &wal[16..24];
    let mut frames = Vec::new();
    let mut at = 32;
    while at + 24 + page_size <= wal.len() {
        let h = &wal[at..at + 24];
        if &h[8..16] != salts {
            break;
        }
        frames.push((
            be(&h[0..4]),
            be(&h[4..8]),
            &wal[at + 24..at + 24 + page_size],
        ));
        at += 24 + page_size;
    }
    frames
}

#[test]
fn a_crash_during_a_checkpoint_loses_nothing() {
    let kb = Kb::new();
    let first = kb.home.path().join("first");
    fixture_tree(&first);
    kb.add(&[&first]);
    let before = status(&kb)["total_documents"].as_i64().unwrap();

    // A connection kept open stops `kb add` from checkpointing when it
    // closes, so its documents stay in the write-ahead log.
    let holder = rusqlite::Connection::open(kb.db_path()).unwrap();
    holder
        .execute_batch("PRAGMA wal_autocheckpoint = 0; SELECT count(*) FROM documents;")
        .unwrap();
    let second = kb.home.path().join("second");
    long_guide(&second);
    manual_folder(&second, 6);
    let added = kb.add(&[&second])["added"].as_i64().unwrap();

    // The state a kill -9 leaves in the middle of the checkpoint: pages go
    // back in page order, so page 1 (whose header counts the pages) is
    // already in kb.db, the pages past its end are not.
    let crashed = Kb::empty();
    std::fs::create_dir_all(crashed.data_dir()).unwrap();
    for f in ["kb.db", "kb.db-wal"] {
        std::fs::copy(kb.data_dir().join(f), crashed.data_dir().join(f)).unwrap();
    }
    drop(holder);
    let wal = std::fs::read(crashed.data_dir().join("kb.db-wal")).unwrap();
    let frames = wal_frames(&wal);
    let last_commit = frames.iter().rposition(|f| f.1 != 0).unwrap();
    let (_, _, page1) = frames[..=last_commit]
        .iter()
        .rev()
        .find(|f| f.0 == 1)
        .expect("the log holds page 1");
    let header_pages = u32::from_be_bytes([page1[28], page1[29], page1[30], page1[31]]) as u64;
    let db = crashed.db_path();
    let mut main = std::fs::read(&db).unwrap();
    assert!(
        (main.len() as u64) < header_pages * page1.len() as u64,
        "kb.db must be shorter than its header says"
    );
    main[..page1.len()].copy_from_slice(page1);
    std::fs::write(&db, &main).unwrap();

    let s = crashed.json(&["status"]);
    assert_eq!(s["total_documents"], before + added, "{s}");
    let hits = crashed.json(&["search", "kayak", "--fts-only", "--top", "1"]);
    assert_eq!(hits["returned"], 1, "{hits}");
    assert_eq!(integrity(&db), "ok");
}

#[test]
fn a_read_only_data_directory_still_answers_reads() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    chmod(kb.home.path(), 0o755);
    chmod(&docs, 0o755);
    chmod(&kb.data_dir(), 0o555);
    let run = |args: &[&str]| {
        let mut c = kb.std_cmd();
        c.args(args).args(["--format", "json"]);
        unprivileged(c).map(|mut c| c.output().unwrap())
    };
    let Some(out) = run(&["status"]) else {
        println!("skipped: running as root without setpriv");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["total_documents"], 3, "{s}");
    let out = run(&["search", "dentist", "--fts-only"]).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["returned"].as_u64().unwrap() >= 1, "{v}");

    // Writes are refused, naming the directory and why.
    let out = run(&["remove", docs.join("git.md").to_str().unwrap()]).unwrap();
    let e = json_error(&out, 2);
    assert_eq!(e["code"], "E_IO", "{e}");
    let msg = e["error"].as_str().unwrap();
    assert!(msg.contains("not writable") && msg.contains("data"), "{e}");
    assert!(!msg.contains("corrupt") && !msg.contains("backup"), "{e}");
    let out = run(&["add", docs.to_str().unwrap()]).unwrap();
    let e = json_error(&out, 2);
    assert_eq!(e["code"], "E_IO", "{e}");
    assert!(e["error"].as_str().unwrap().contains("not writable"), "{e}");
    chmod(&kb.data_dir(), 0o755);
    assert_eq!(status(&kb)["total_documents"], 3);
}

#[test]
fn a_database_kb_may_not_read_is_a_permission_error() {
    let kb = Kb::new();
    chmod(kb.home.path(), 0o755);
    chmod(&kb.data_dir(), 0o755);
    let mode = if unsafe { libc::geteuid() } == 0 {
        0o600
    } else {
        0o000
    };
    chmod(&kb.db_path(), mode);
    let mut c = kb.std_cmd();
    c.args(["status", "--format", "json"]);
    let Some(mut c) = unprivileged(c) else {
        println!("skipped: running as root without setpriv");
        return;
    };
    let e = json_error(&c.output().unwrap(), 2);
    assert_eq!(e["code"], "E_IO", "{e}");
    let msg = e["error"].as_str().unwrap();
    assert!(
        msg.contains("kb.db") && msg.contains("Permission denied"),
        "{e}"
    );
    chmod(&kb.db_path(), 0o644);
}

#[test]
fn a_write_ahead_log_deleted_under_a_running_process_is_named() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    // Another process with the database open and changes in its log.
    let other = rusqlite::Connection::open(kb.db_path()).unwrap();
    other
        .execute_batch(
            "PRAGMA wal_autocheckpoint = 0;
             CREATE TABLE held_open (x);
             INSERT INTO held_open VALUES (randomblob(100000));",
        )
        .unwrap();
    std::fs::remove_file(kb.data_dir().join("kb.db-wal")).unwrap();
    let e = kb.error(&["status"], 2);
    assert_eq!(e["code"], "E_IO", "{e}");
    let msg = e["error"].as_str().unwrap();
    assert!(msg.contains("kb.db-wal") && msg.contains("deleted"), "{e}");
    assert!(!msg.contains("corrupt"), "{e}");
    // The other process writes its changes back when it closes.
    drop(other);
    assert_eq!(status(&kb)["total_documents"], 3);
}

#[test]
fn two_adds_at_once_embed_each_file_once() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    // About 30 chunks a file: several model batches.
    let files = manual_folder(&docs, 6) as u64;
    let args = ["add", docs.to_str().unwrap(), "--format", "json", "--quiet"];
    // The first holds the writer lock, held in its second model batch,
    // until the second says it waits for it.
    let first = kb.start_paused(&args, 1);
    let mut second = kb.start(&args);
    second.wait_for_stderr(
        |l| l.contains("waiting for it to finish"),
        "the wait for the first kb add",
    );
    first.resume();
    let outs = [first.wait(), second.wait()];
    let mut added = 0;
    for out in &outs {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["updated"], 0, "re-embedded what the other committed: {v}");
        added += v["added"].as_u64().unwrap();
    }
    assert_eq!(added, files);
    let waited = String::from_utf8_lossy(&outs[1].stderr);
    assert!(waited.contains("waiting for it to finish"), "{waited}");
    let s = status(&kb);
    assert_eq!(s["total_documents"], files);
}

#[test]
fn top_and_threshold_have_stated_limits() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    long_guide(&docs);
    kb.add(&[&docs]);
    // sqlite-vec answered at most 4096 neighbours; 3 x 1366 was over it.
    for mode in ["hybrid", "vector"] {
        let v = kb.json(&["search", "kayak", "--mode", mode, "--top", "1366"]);
        assert!(v["returned"].as_u64().unwrap() >= 1, "{mode}: {v}");
        let v = kb.json(&["search", "kayak", "--mode", mode, "--top", "4096"]);
        assert!(v["returned"].as_u64().unwrap() >= 1, "{mode}: {v}");
    }
    for (args, field) in [
        (&["--top", "4097"][..], "4096"),
        (&["--top", "6148914691236517206"], "4096"),
        (&["--threshold", "nan"], "threshold"),
        (&["--threshold", "inf"], "threshold"),
        (&["--threshold=-0.5"], "threshold"),
    ] {
        let mut all = vec!["search", "kayak"];
        all.extend_from_slice(args);
        let e = kb.error(&all, 1);
        assert_eq!(e["code"], "E_USAGE", "{args:?}: {e}");
        assert!(
            e["error"].as_str().unwrap().contains(field),
            "{args:?}: {e}"
        );
    }
}

#[test]
fn bytes_that_are_not_utf8_in_arguments_or_environment_are_errors() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let kb = Kb::new();
    let bad = |s: &[u8]| OsStr::from_bytes(s).to_os_string();
    // Not kb's variable: ignored.
    let out = kb
        .cmd()
        .env("FOO", bad(b"\xff"))
        .args(["status", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // kb's: an error naming it.
    let out = kb
        .cmd()
        .env("KB_DEFAULT_TOP", bad(b"\xff"))
        .args(["status", "--format", "json"])
        .output()
        .unwrap();
    let e = json_error(&out, 1);
    assert_eq!(e["code"], "E_CONFIG", "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("KB_DEFAULT_TOP"),
        "{e}"
    );
    for args in [
        vec![bad(b"search"), bad(b"abc\xff")],
        vec![bad(b"open"), bad(b"\xff.md")],
    ] {
        let out = kb
            .cmd()
            .args(&args)
            .args(["--format", "json"])
            .output()
            .unwrap();
        let e = json_error(&out, 1);
        assert_eq!(e["code"], "E_USAGE", "{args:?}: {e}");
        assert!(e["error"].as_str().unwrap().contains("UTF-8"), "{e}");
    }
}

#[test]
fn human_output_never_carries_escape_sequences_from_documents() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    // A title that clears the screen, a file name that sets the window title
    // and reverses itself, text with a disguised link and a bell.
    let name = "evil\x1b]0;owned\x07\u{202e}dm.txt.md";
    let path = docs.join(name);
    write(
        &path,
        "# Kayak \x1b[2J\x1b[H guide\n\nKayak paddling basics: \x1b]8;;http://evil.example/\x07click here\
         \x1b]8;;\x07 to learn the kayak stroke.\x07 Keep the blade \x1b[31mvertical\x1b[0m and rotate \
         your torso through the kayak stroke \u{9b}31m for power.\n",
    );
    kb.add(&[&docs]);
    let id = kb.json(&["list"])[0]["id"].to_string();
    let chunk = kb.json(&["search", "kayak", "--top", "1"])["results"][0]["chunk_id"].to_string();
    for args in [
        vec!["search", "kayak stroke"],
        vec!["search", "kayak", "--fts-only"],
        vec!["show", chunk.as_str()],
        vec!["list"],
        vec!["info", id.as_str()],
        vec!["outline", id.as_str()],
        vec!["open", id.as_str()],
    ] {
        let out = kb
            .cmd()
            .args(&args)
            .args(["--format", "human"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("Kayak") || text.contains("kayak"),
            "{args:?}: {text}"
        );
        for c in text.chars() {
            let harmful = (c.is_control() && c != '\n' && c != '\t')
                || ('\u{202A}'..='\u{202E}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c);
            assert!(!harmful, "{args:?} printed {:?}: {text:?}", c);
        }
    }
}

/// Chunk texts and token counts of the document at `path`, in order.
fn chunks_of(kb: &Kb, path_suffix: &str) -> Vec<(String, i64)> {
    let conn = rusqlite::Connection::open(kb.db_path()).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT c.text, c.token_count FROM chunks c JOIN documents d ON d.id = c.document_id
             WHERE d.source_path LIKE '%' || ?1 ORDER BY c.chunk_index",
        )
        .unwrap();
    stmt.query_map([path_suffix], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[test]
fn chinese_and_japanese_text_is_split_never_truncated() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    let ja_body = "京都の春は桜の季節として知られており毎年多くの旅行者が哲学の道を歩きながら満開の花を楽しむ\
        川沿いの小道には古い茶屋が並び抹茶と和菓子を味わうことができる\
        朝早く訪れると人が少なく鳥の声を聞きながら静かに散歩できる\
        夕方になると提灯に明かりがともり昼とはまったく違う景色が広がる";
    let ja_end = "最後に嵐山の竹林を抜けて渡月橋から夕日を眺めるのがおすすめです";
    let ja = format!("{}{ja_end}", ja_body.repeat(6));
    assert!(ja.chars().count() > 800, "{}", ja.chars().count());
    write(&docs.join("kyoto.md"), &format!("# 京都の春\n\n{ja}\n"));
    let zh_body = "我们的团队每周一上午开会讨论项目进度并安排本周的开发任务\
        每个成员需要提前准备好上周完成的工作和遇到的问题\
        会议结束后负责人会整理会议记录并发送给所有参与者";
    let zh_end = "如果有紧急问题可以随时在聊天群里联系值班的工程师";
    let zh = format!("{}{zh_end}", zh_body.repeat(8));
    assert!(zh.chars().count() > 600, "{}", zh.chars().count());
    write(&docs.join("meetings.txt"), &format!("{zh}\n"));
    let s = kb.add(&[&docs]);
    assert_eq!(s["added"], 2, "{s}");
    for (file, text, end) in [("kyoto.md", &ja, ja_end), ("meetings.txt", &zh, zh_end)] {
        let chunks = chunks_of(&kb, file);
        assert!(chunks.len() > 1, "{file}: {chunks:?}");
        for (_, tokens) in &chunks {
            assert!(
                *tokens <= 256,
                "{file}: a chunk of {tokens} tokens would be truncated"
            );
        }
        let joined: String = chunks.iter().map(|c| c.0.as_str()).collect();
        let chars = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        assert!(
            chars(&joined).contains(&chars(text)),
            "{file}: text lost between the chunks"
        );
        let last = &chunks.last().unwrap().0;
        assert!(
            chars(last).contains(&chars(end)),
            "{file}: its last words are not indexed"
        );
    }
}

#[test]
fn a_file_name_that_is_not_utf8_is_one_document_found_again() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    let odd = docs.join(OsStr::from_bytes(b"caf\xe9-men\xfc.md"));
    std::fs::write(
        &odd,
        "# Latin-1 menu\n\nThe quince tart and the chestnut soup are served on Fridays.\n",
    )
    .unwrap();
    let first = kb.add(&[&docs]);
    assert_eq!(
        (first["added"].as_u64(), first["removed"].as_u64()),
        (Some(4), Some(0)),
        "{first}"
    );
    let again = kb.add(&[&docs]);
    assert_eq!(again["added"], 0, "{again}");
    assert_eq!(again["removed"], 0, "{again}");
    assert_eq!(again["skipped"], 4, "{again}");
    let hits = kb.json(&["search", "quince tart chestnut", "--fts-only"]);
    let path = hits["results"][0]["source"]["path"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(path.ends_with("caf\\xE9-men\\xFC.md"), "{path}");
    // The path as printed names the document; its file is there.
    let info = kb.json(&["info", &path]);
    assert_eq!(info["file_status"], "unchanged", "{info}");
    std::fs::remove_file(&odd).unwrap();
    let gone = kb.add(&[&docs]);
    assert_eq!(gone["removed"], 1, "{gone}");
}

#[test]
fn one_file_is_one_document_however_it_is_reached() {
    let kb = Kb::new();
    let home = kb.home.path();
    let docs = home.join("dir");
    long_guide(&docs);
    write(
        &docs.join("notes/dentist.txt"),
        "Call the dentist on Monday about the crown.\n",
    );
    std::fs::create_dir_all(home.join("other")).unwrap();
    std::os::unix::fs::symlink(&docs, home.join("link")).unwrap();
    for p in [docs.clone(), home.join("other/../dir"), home.join("link")] {
        kb.add(&[&p]);
    }
    assert_eq!(status(&kb)["total_documents"], 2);
    let hits = kb.json(&[
        "search",
        "kayak paddle canoe",
        "--top",
        "10",
        "--max-per-document",
        "0",
    ]);
    let mut found: Vec<(String, i64)> = hits["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let s = &h["source"];
            (
                s["path"].as_str().unwrap().to_string(),
                s["chunk_index"].as_i64().unwrap(),
            )
        })
        .collect();
    let n = found.len();
    found.sort();
    found.dedup();
    assert_eq!(found.len(), n, "one chunk came back more than once: {hits}");
    assert!(n >= 3, "{hits}");
    // A file given through the link is the same document too.
    let again = kb.add(&[&home.join("link/notes/dentist.txt")]);
    assert_eq!(
        (again["added"].as_u64(), again["skipped"].as_u64()),
        (Some(0), Some(1)),
        "{again}"
    );
}

/// A file emptied for a moment (an editor's save, a checkout): its old
/// text leaves the index, its document stays with the user's tags, an
/// unchanged empty file is passed by, and its text comes back with them.
#[test]
fn an_emptied_file_takes_its_old_text_out_of_the_index_and_keeps_its_tags() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    assert_eq!(kb.json(&["search", "dentist", "--fts-only"])["returned"], 1);
    let note = docs.join("notes/dentist.txt");
    let text = std::fs::read(&note).unwrap();
    kb.json(&["tag", note.to_str().unwrap(), "--add", "health"]);
    std::fs::write(&note, b"").unwrap();
    // Emptied a while ago (a file written in the second it is read has no
    // mtime recorded, and is read again).
    std::fs::File::options()
        .write(true)
        .open(&note)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(60))
        .unwrap();
    let s = kb.add(&[&docs]);
    assert_eq!(
        (s["empty"].as_u64(), s["removed"].as_u64()),
        (Some(1), Some(0)),
        "{s}"
    );
    assert_eq!(kb.json(&["search", "dentist", "--fts-only"])["returned"], 0);
    assert_eq!(status(&kb)["total_documents"], 3);
    let again = kb.add(&[&docs]);
    assert_eq!(
        (again["empty"].as_u64(), again["skipped"].as_u64()),
        (Some(0), Some(3)),
        "{again}"
    );
    std::fs::write(&note, text).unwrap();
    let back = kb.add(&[&docs]);
    assert_eq!(back["updated"], 1, "{back}");
    let hits = kb.json(&["search", "dentist", "--fts-only", "--tags", "health"]);
    assert_eq!(hits["returned"], 1, "{hits}");
}

#[test]
fn utf16_text_with_a_byte_order_mark_is_indexed() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let text = "Meeting notes\r\nThe greenhouse heater needs a new thermostat before winter.\r\n";
    let le: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    std::fs::write(docs.join("windows-notes.txt"), le).unwrap();
    let s = kb.add(&[&docs]);
    assert_eq!(
        (s["added"].as_u64(), s["failed"].as_u64()),
        (Some(1), Some(0)),
        "{s}"
    );
    let hits = kb.json(&["search", "greenhouse thermostat"]);
    assert_eq!(hits["returned"], 1, "{hits}");
    assert!(hits["results"][0]["text"]
        .as_str()
        .unwrap()
        .contains("greenhouse heater"));
}

#[test]
fn documents_an_older_kb_stored_under_a_link_are_not_kept_twice() {
    let kb = Kb::new();
    let home = kb.home.path();
    let docs = home.join("dir");
    fixture_tree(&docs);
    let link = home.join("link");
    std::os::unix::fs::symlink(&docs, &link).unwrap();
    let n = kb.add(&[&docs])["added"].as_i64().unwrap();
    // What kb before canonical paths stored for `kb add link`: the same
    // files under the link's name.
    let canonical = std::fs::canonicalize(&docs).unwrap();
    let conn = rusqlite::Connection::open(kb.db_path()).unwrap();
    let moved = conn
        .execute(
            "UPDATE documents SET source_path = ?2 || substr(source_path, length(?1) + 1)
             WHERE source_path LIKE ?1 || '/%'",
            [
                canonical.to_str().unwrap(),
                std::path::absolute(&link).unwrap().to_str().unwrap(),
            ],
        )
        .unwrap();
    drop(conn);
    assert_eq!(moved as i64, n);
    // Today's kb stores them by their canonical path and drops the copies.
    let s = kb.add(&[&link]);
    assert_eq!(
        (s["added"].as_i64(), s["removed"].as_i64()),
        (Some(n), Some(n)),
        "{s}"
    );
    assert_eq!(status(&kb)["total_documents"], n);
    let again = kb.add(&[&link]);
    assert_eq!(
        (again["skipped"].as_i64(), again["removed"].as_i64()),
        (Some(n), Some(0)),
        "{again}"
    );
}

#[test]
fn a_kb_db_too_short_for_an_sqlite_header_is_refused_and_left_as_it_is() {
    // SQLite took a 1-byte kb.db for a new database and wrote one over it,
    // from any command (kb status included); every size short of the
    // header, and any file without its magic, is refused.
    for bytes in [
        &b"x"[..],
        &[7u8; 50][..],
        &b"SQLite format 2\0 and then some text that fills up a hundred bytes or more, to be sure."
            [..],
    ] {
        let kb = Kb::empty();
        std::fs::create_dir_all(kb.data_dir()).unwrap();
        std::fs::write(kb.db_path(), bytes).unwrap();
        for args in [
            &["status"][..],
            &["search", "anything", "--fts-only"][..],
            &["doctor"][..],
        ] {
            let out = kb
                .cmd()
                .args(args)
                .args(["--format", "json"])
                .output()
                .unwrap();
            if args[0] == "doctor" {
                assert_eq!(
                    out.status.code(),
                    Some(2),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(v["healthy"], false, "{v}");
                continue;
            }
            let e = json_error(&out, 2);
            assert_eq!(
                e["code"],
                "E_DB_CORRUPT",
                "{} bytes, kb {args:?}: {e}",
                bytes.len()
            );
            assert!(e["error"].as_str().unwrap().contains("kb.db"), "{e}");
        }
        assert_eq!(
            std::fs::read(kb.db_path()).unwrap(),
            bytes,
            "{} bytes: left as they were",
            bytes.len()
        );
        let names: Vec<String> = std::fs::read_dir(kb.data_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["kb.db"], "nothing written beside it");
    }
}

#[test]
fn doctor_flags_a_database_sqlite_opened_read_only() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    assert_eq!(kb.json(&["doctor"])["healthy"], true);
    // A damaged header byte: the file format's write version says no
    // SQLite may write this file, so SQLite opens it read-only.
    let mut main = std::fs::read(kb.db_path()).unwrap();
    assert_eq!((main[18], main[19]), (2, 2), "WAL mode");
    main[18] = 3;
    std::fs::write(kb.db_path(), &main).unwrap();
    // Reads still work...
    assert_eq!(status(&kb)["total_documents"], 3);
    // ... but kb doctor says what stops the writes.
    let out = kb
        .cmd()
        .args(["doctor", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["healthy"], false, "{v}");
    let check = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["status"] == "fault")
        .unwrap_or_else(|| panic!("no fault: {v}"));
    let detail = check["detail"].as_str().unwrap();
    assert!(
        detail.contains("read-only") && detail.contains("byte 18"),
        "{check}"
    );
    assert!(check["fix"].as_str().is_some(), "{check}");
    let e = json_error(&stderr_output(&kb, &["doctor"]), 2);
    assert_eq!(e["code"], "E_UNHEALTHY", "{e}");
    // And a write is refused with the same reason.
    let out = kb
        .cmd()
        .args(["add", "--quiet", "--format", "json"])
        .arg(&docs)
        .output()
        .unwrap();
    let e = json_error(&out, 2);
    assert_eq!(e["code"], "E_IO", "{e}");
    assert!(e["error"].as_str().unwrap().contains("byte 18"), "{e}");
    // What the fix says works: a backup is a new file with a sound header.
    let copy = kb.home.path().join("rescued.db");
    let b = kb.json(&["backup", copy.to_str().unwrap(), "--format", "json"]);
    assert_eq!(b["documents"], 3, "{b}");
    let head = std::fs::read(&copy).unwrap();
    assert!(head[18] <= 2, "the copy's header is a new one");
}

fn stderr_output(kb: &Kb, args: &[&str]) -> std::process::Output {
    kb.cmd()
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap()
}

#[test]
fn a_backup_during_a_running_add_is_consistent_and_answers_searches() {
    let kb = Kb::new();
    let first = kb.home.path().join("first");
    fixture_tree(&first);
    kb.add(&[&first]);
    let second = kb.home.path().join("second");
    manual_folder(&second, 24);
    // kb add is held in the middle of its work: a model batch in flight,
    // documents committed before it, the write-ahead log busy.
    let running = kb.start_paused(
        &[
            "add",
            second.to_str().unwrap(),
            "--quiet",
            "--format",
            "json",
        ],
        2,
    );
    let copies = kb.home.path().join("copies");
    std::fs::create_dir_all(copies.join("kb")).unwrap();
    let copy = copies.join("kb/kb.db");
    let b = kb.json(&["backup", copy.to_str().unwrap(), "--format", "json"]);
    assert_eq!(b["integrity"], "ok", "{b}");
    assert!(b["documents"].as_i64().unwrap() >= 3, "{b}");
    running.resume();
    let out = running.wait();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The copy: sound, whole documents only, and a knowledge base of its
    // own that answers searches.
    assert_eq!(integrity(&copy), "ok");
    let conn =
        rusqlite::Connection::open_with_flags(&copy, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let partial: i64 = conn
        .query_row(
            "SELECT count(*) FROM documents d WHERE NOT EXISTS
                 (SELECT 1 FROM chunks c WHERE c.document_id = d.id)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(partial, 0);
    drop(conn);
    let run = |args: &[&str]| -> Value {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("kb"));
        c.arg("--data-dir").arg(copies.join("kb"));
        c.args(args)
            .env("HOME", kb.home.path())
            .env("HF_HUB_OFFLINE", "1");
        for (k, _) in std::env::vars() {
            if k.starts_with("KB_") {
                c.env_remove(k);
            }
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "kb {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    assert_eq!(run(&["status"])["total_documents"], b["documents"]);
    let hits = run(&["search", "dentist appointment"]);
    assert!(hits["returned"].as_u64().unwrap() >= 1, "{hits}");
    assert_eq!(hits["mode"], "hybrid", "{hits}");
    // A second backup to the same file is refused; into a folder it is named.
    let e = kb.error(&["backup", copy.to_str().unwrap()], 1);
    assert!(e["error"].as_str().unwrap().contains("exists"), "{e}");
    let b2 = kb.json(&["backup", copies.to_str().unwrap(), "--format", "json"]);
    let named = b2["path"].as_str().unwrap();
    assert!(
        named.contains("/copies/kb-") && named.ends_with(".db"),
        "{b2}"
    );
    assert_eq!(b2["documents"], status(&kb)["total_documents"], "{b2}");
}

#[test]
fn a_killed_backups_leftovers_are_removed_by_the_next_backup() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let copies = kb.home.path().join("copies");
    std::fs::create_dir_all(&copies).unwrap();
    // What kill -9 during a backup leaves beside its target: a hidden,
    // full-size partial copy and its journal, named for its process, which
    // is gone (its id is that of a process that has ended).
    let mut ended = Command::new("true").spawn().unwrap();
    let dead = ended.id();
    ended.wait().unwrap();
    let stale = [
        copies.join(format!(".kb-20260101T000000Z.db.partial-{dead}")),
        copies.join(format!(".kb-20260101T000000Z.db.partial-{dead}-journal")),
    ];
    std::fs::copy(kb.db_path(), &stale[0]).unwrap();
    std::fs::write(&stale[1], b"journal").unwrap();
    // A backup running now keeps its own.
    let mut running = Command::new("sleep").arg("60").spawn().unwrap();
    let live = copies.join(format!(".kb-other.db.partial-{}", running.id()));
    std::fs::write(&live, b"in progress").unwrap();

    let b = kb.json(&["backup", copies.to_str().unwrap(), "--format", "json"]);
    running.kill().unwrap();
    running.wait().unwrap();
    assert_eq!(b["integrity"], "ok", "{b}");
    let removed: Vec<&str> = b["removed_partials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(removed.len(), 2, "{b}");
    for f in &stale {
        assert!(!f.exists(), "{f:?} left");
        assert!(removed
            .iter()
            .any(|r| r.ends_with(&*f.file_name().unwrap().to_string_lossy())));
    }
    assert!(live.exists(), "a running backup's copy was removed");
    // What is left: the new copy, and the live process's file.
    let mut names: Vec<String> = std::fs::read_dir(&copies)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names[1].starts_with("kb-") && names[1].ends_with(".db"),
        "{names:?}"
    );
    // Once that process is gone too, the next backup removes its file,
    // and says so.
    let out = kb
        .cmd()
        .arg("backup")
        .arg(copies.join("second.db"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A report: on stderr.
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("Removed") && said.contains(".kb-other.db.partial-"),
        "{said}"
    );
    assert!(!live.exists());
}

#[test]
fn a_backup_onto_a_read_only_file_system_says_so() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let target = kb.home.path().join("ro");
    let _mount = match Tmpfs::mount_with(&target, "ro,size=1m") {
        Ok(m) => m,
        Err(why) => {
            println!("skipped: the read-only test needs a tmpfs: {why}");
            return;
        }
    };
    let e = kb.error(&["backup", target.to_str().unwrap()], 2);
    assert_eq!(e["code"], "E_IO", "{e}");
    let message = e["error"].as_str().unwrap();
    assert!(
        message.contains("Read-only file system") && message.contains(target.to_str().unwrap()),
        "{message}"
    );
}

#[test]
fn another_programs_sqlite_file_is_left_byte_for_byte() {
    let kb = Kb::empty();
    std::fs::create_dir_all(kb.data_dir()).unwrap();
    // An application's database (rollback-journal mode, as most are) where
    // kb.db should be.
    let conn = rusqlite::Connection::open(kb.db_path()).unwrap();
    conn.execute_batch(
        "CREATE TABLE songs(id INTEGER PRIMARY KEY, title TEXT);
         INSERT INTO songs(title) VALUES ('Blue in Green'), ('So What');",
    )
    .unwrap();
    drop(conn);
    let before = std::fs::read(kb.db_path()).unwrap();
    for args in [
        &["status"][..],
        &["search", "blue"],
        &["list"],
        &["stats"],
        &["sources"],
    ] {
        let e = kb.error(args, 2);
        assert_eq!(e["code"], "E_DB_CORRUPT", "{args:?}: {e}");
        assert!(
            e["error"]
                .as_str()
                .unwrap()
                .contains("not a knowledge base"),
            "{e}"
        );
        assert_eq!(
            std::fs::read(kb.db_path()).unwrap(),
            before,
            "kb {args:?} wrote the file"
        );
        let names: Vec<String> = std::fs::read_dir(kb.data_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["kb.db"], "kb {args:?} wrote beside it");
    }
    // Nor does a command that writes.
    let docs = kb.home.path().join("docs");
    write(&docs.join("a.md"), "# A\n\nSome words.\n");
    let e = kb.error(&["add", docs.to_str().unwrap(), "--quiet"], 2);
    assert_eq!(e["code"], "E_DB_CORRUPT", "{e}");
    assert_eq!(std::fs::read(kb.db_path()).unwrap(), before);
}

#[test]
fn a_backup_copy_is_used_with_data_dir_as_it_is() {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    fixture_tree(&docs);
    kb.add(&[&docs]);
    let copies = kb.home.path().join("copies");
    std::fs::create_dir_all(&copies).unwrap();
    let b = kb.json(&["backup", copies.to_str().unwrap(), "--format", "json"]);
    let copy = PathBuf::from(b["path"].as_str().unwrap());
    // A second copy, its write-version byte damaged before anything opened
    // it: SQLite opens such a rollback-journal file read-only.
    let damaged = copies.join("damaged.db");
    std::fs::copy(&copy, &damaged).unwrap();
    let mut bytes = std::fs::read(&damaged).unwrap();
    assert_eq!(
        (bytes[18], bytes[19]),
        (1, 1),
        "kb backup writes rollback-journal mode"
    );
    bytes[18] = 3;
    std::fs::write(&damaged, &bytes).unwrap();
    // kb with the copy named where a data directory would be.
    let with = |db: &Path, args: &[&str]| {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("kb"));
        c.arg("--data-dir")
            .arg(db)
            .args(args)
            .args(["--format", "json"]);
        c.env("HOME", kb.home.path()).env("HF_HUB_OFFLINE", "1");
        for (k, _) in std::env::vars() {
            if k.starts_with("KB_") {
                c.env_remove(k);
            }
        }
        c.output().unwrap()
    };
    // The copy, named as it is, is a knowledge base.
    let out = with(&copy, &["status"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["total_documents"], b["documents"], "{s}");
    let out = with(&copy, &["search", "dentist appointment"]);
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(hits["returned"].as_u64().unwrap() >= 1, "{hits}");
    let extra = kb.home.path().join("extra.md");
    write(&extra, "# Extra\n\nAdded to the copy alone.\n");
    let out = with(&copy, &["add", extra.to_str().unwrap(), "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        status(&kb)["total_documents"],
        b["documents"],
        "the original is untouched"
    );
    // The damaged copy answers reads, and names byte 18 for writes.
    let out = with(&damaged, &["status"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["total_documents"], b["documents"], "{s}");
    let out = with(&damaged, &["add", extra.to_str().unwrap(), "--quiet"]);
    let e = json_error(&out, 2);
    assert_eq!(e["code"], "E_IO", "{e}");
    assert!(e["error"].as_str().unwrap().contains("byte 18"), "{e}");
    let out = with(&damaged, &["doctor"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("byte 18"));
    assert_eq!(
        std::fs::read(&damaged).unwrap(),
        bytes,
        "the damaged copy was written"
    );
}
