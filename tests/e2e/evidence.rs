//! Evidence in fusion, on a mixed knowledge base (notes in Chinese,
//! Japanese and English, and codec tables like Python's `encodings`): a
//! query the model cannot read is answered by its keywords alone and says
//! so, and queries about nothing in the knowledge base say "no good match"
//! while real questions do not.

use serde_json::Value;

use crate::common::{write, Kb};

fn results(v: &Value) -> &Vec<Value> {
    v["results"].as_array().unwrap()
}

fn file_name(r: &Value) -> String {
    let path = r["source"]["path"].as_str().unwrap_or_default();
    path.rsplit('/').next().unwrap_or_default().to_string()
}

/// A module like Python's generated charmap codecs: 256 table lines of
/// escapes and character names, the kind of text an English model
/// understands least and so puts nearest to anything it cannot read.
fn codec_table(name: &str, script: &str, base: u32) -> String {
    let mut s = format!(
        "\"\"\" Python Character Mapping Codec {name} generated from 'VENDORS/{}.TXT'.\n\n\"\"\"\n\n\
         import codecs\n\n\
         class Codec(codecs.Codec):\n\n    def encode(self, input, errors='strict'):\n        \
         return codecs.charmap_encode(input, errors, encoding_table)\n\n    \
         def decode(self, input, errors='strict'):\n        \
         return codecs.charmap_decode(input, errors, decoding_table)\n\n\
         decoding_table = (\n",
        name.to_uppercase()
    );
    let letters = [
        "ALEF", "BEH", "TEH", "JEEM", "HAH", "DAL", "REH", "SEEN", "SAD", "TAH",
    ];
    for i in 0..256u32 {
        let what = if i < 32 {
            "CONTROL CHARACTER".to_string()
        } else {
            format!("{script} LETTER {}", letters[(i % 10) as usize])
        };
        s.push_str(&format!(
            "    '\\u{:04x}'     #  0x{i:02X} -> {what}\n",
            base + i
        ));
    }
    s.push_str(")\n\nencoding_table = codecs.charmap_build(decoding_table)\n");
    s
}

fn mixed_kb() -> Kb {
    let kb = Kb::new();
    let docs = kb.home.path().join("docs");
    write(
        &docs.join("zh/curl.md"),
        "# curl\n\n> 在服务器之间传输数据。\n\n- 使用客户端证书和私钥发送请求：\n\n\
         `curl --cert 证书.pem --key 密钥.pem https://example.com`\n\n\
         - 跳过证书验证（不安全）：\n\n`curl --insecure https://example.com`\n",
    );
    write(
        &docs.join("zh/ssh-keygen.md"),
        "# ssh-keygen\n\n> 生成用于认证的 SSH 密钥。\n\n- 生成 ed25519 密钥：\n\n\
         `ssh-keygen -t ed25519`\n\n- 密钥轮换：生成新密钥，把公钥加入服务器，再删除旧密钥。\n\n\
         `ssh-copy-id -i ~/.ssh/新密钥.pub 用户@主机`\n",
    );
    write(
        &docs.join("zh/tar.md"),
        "# tar\n\n> 归档工具。\n\n- 创建归档并用 gzip 压缩：\n\n`tar czf 目标.tar.gz 文件1 文件2`\n",
    );
    write(
        &docs.join("ja/openssl.md"),
        "# openssl\n\n> 暗号化ツール。証明書と鍵を管理する。\n\n- 自己署名証明書を作成する：\n\n\
         `openssl req -new -x509 -key 鍵.pem -out 証明書.pem`\n",
    );
    write(
        &docs.join("en/ssh-keygen.md"),
        "# ssh-keygen\n\n> Generate SSH keys used for authentication.\n\n\
         - Generate an ed25519 key pair:\n\n`ssh-keygen -t ed25519`\n\n\
         - Rotate keys: generate a new key, add its public key to the server, then remove the old one.\n",
    );
    write(
        &docs.join("en/curl.md"),
        "# curl\n\n> Transfers data from or to a server.\n\n\
         - Send a request with a client certificate and key:\n\n\
         `curl --cert client.pem --key key.pem https://example.com`\n",
    );
    for (name, script, base) in [
        ("mac_arabic", "ARABIC", 0x0600),
        ("iso8859_6", "ARABIC", 0x0620),
        ("cp1255", "HEBREW", 0x05d0),
        ("koi8_u", "CYRILLIC", 0x0410),
    ] {
        write(
            &docs.join(format!("code/{name}.py")),
            &codec_table(name, script, base),
        );
    }
    kb.add(&[&docs]);
    kb
}

/// CJK words rank the notes holding them above the codec tables, by
/// keyword alone, and the output says the model could not read them;
/// emoji and symbols find nothing rather than the nearest table.
#[test]
fn a_query_the_model_cannot_read_is_answered_by_its_keywords() {
    let kb = mixed_kb();
    for (query, holders) in [
        ("密钥", &["curl.md", "ssh-keygen.md"][..]),
        ("证书", &["curl.md"][..]),
        ("密钥轮换", &["ssh-keygen.md"][..]),
        ("証明書", &["openssl.md"][..]),
    ] {
        let v = kb.json(&["search", query, "--top", "5"]);
        assert_eq!(v["query_unreadable"], true, "{query}: {v}");
        assert_eq!(v["mode"], "hybrid", "the mode asked for: {v}");
        assert_eq!(
            v["ranked_by"],
            serde_json::json!(["keyword"]),
            "{query}: {v}"
        );
        let names: Vec<String> = results(&v).iter().map(file_name).collect();
        assert!(
            holders.contains(&names.first().map(String::as_str).unwrap_or("")),
            "{query}: {names:?}"
        );
        assert!(
            names.iter().take(3).all(|n| !n.ends_with(".py")),
            "{query}: a codec table in the top 3: {names:?}"
        );
        assert!(
            !results(&v).is_empty() && v["no_good_match"] == false,
            "{v}"
        );
    }
    for query in ["🔥", "(((("] {
        let v = kb.json(&["search", query]);
        assert_eq!(
            v["ranked_by"],
            serde_json::json!(["keyword"]),
            "{query}: {v}"
        );
        assert!(results(&v).is_empty(), "{query}: {v}");
        assert_eq!(v["no_good_match"], true, "{query}: {v}");
    }
    // Human output says why.
    let out = kb
        .cmd()
        .args(["search", "密钥", "--format", "human"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("cannot read this query"), "{text}");
}

/// Nonsense and off-topic queries are flagged as no good match, every
/// result weak; real questions and exact identifiers are not.
#[test]
fn nothing_relevant_is_said() {
    let kb = mixed_kb();
    for query in ["qwxzv", "recipe for chocolate cake", "asdf jkl"] {
        let v = kb.json(&["search", query]);
        assert_eq!(v["no_good_match"], true, "{query}: {v}");
        assert!(
            results(&v).iter().all(|r| r["weak"] == true),
            "{query}: {v}"
        );
        let out = kb
            .cmd()
            .args(["search", query, "--format", "human"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("No good match"), "{query}: {text}");
    }
    for query in [
        "how do I rotate ssh keys",
        "send a request with a client certificate",
    ] {
        let v = kb.json(&["search", query]);
        assert_eq!(v["no_good_match"], false, "{query}: {v}");
        assert_eq!(results(&v)[0]["weak"], false, "{query}: {v}");
        assert!(file_name(&results(&v)[0]).ends_with(".md"), "{query}: {v}");
    }
    // An identifier found word for word is evidence whatever its cosine.
    let v = kb.json(&["search", "charmap_build"]);
    assert_eq!(v["no_good_match"], false, "{v}");
    assert!(file_name(&results(&v)[0]).ends_with(".py"), "{v}");
}
