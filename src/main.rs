fn main() {
    kb::timings::start();
    let code = kb::cli::run();
    kb::timings::report();
    if code != 0 {
        // Interrupted or failed: kb returns at once, without waiting for a
        // model batch still running on another thread (an ingest that hit
        // a full disk, a Ctrl-C). Exiting through the C runtime would run
        // ONNX Runtime's static destructors under that batch (an
        // "[E:onnxruntime ...] GetElementType is not implemented" line after
        // kb's last word, or a crash). Everything kb committed is in SQLite
        // already; what is left to do is flush and leave.
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        // SAFETY: _exit only ends the process; nothing runs after it.
        unsafe { libc::_exit(code) }
    }
    std::process::exit(code);
}
