fn main() {
    kb::timings::start();
    let code = kb::cli::run();
    kb::timings::report();
    // By now every database connection is closed and every file kb wrote
    // is synced. Leaving through the C runtime would run ONNX Runtime's
    // static destructors: after a failure or a Ctrl-C, under a model batch
    // still running on another thread (an "[E:onnxruntime ...]
    // GetElementType is not implemented" line after kb's last word, or a
    // crash); after a search, freeing its operator registries, a few
    // milliseconds of every one-shot `kb search`. What is left to do is
    // flush and leave.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: _exit only ends the process; nothing runs after it.
    unsafe { libc::_exit(code) }
}
