use super::*;

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("chevron-nvcc-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
#[cfg(unix)]
fn a_compiler_that_never_returns_is_stopped_with_its_children() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("hang");
    // A stand-in nvcc that starts a child (as nvcc starts cicc) and hangs; both write
    // their pids so that the test can see them gone.
    let script = dir.0.join("nvcc");
    let pids = dir.0.join("pids");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nsleep 300 &\necho $! >> '{p}'\necho $$ >> '{p}'\nwait\n",
            p = pids.display()
        ),
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let source = dir.0.join("k.cu");
    std::fs::write(&source, "extern \"C\" __global__ void k() {}\n").expect("k.cu");
    let start = Instant::now();
    let err = match run(
        &script,
        &source,
        &Extra::default(),
        None,
        Duration::from_millis(300),
    ) {
        Err(e) => e,
        Ok(_) => panic!(
            "a hanging nvcc returned; it wrote: {:?}",
            std::fs::read_to_string(&pids)
        ),
    };
    let took = start.elapsed();
    assert!(took < Duration::from_secs(10), "stopped after {took:?}");
    assert!(err.contains("did not finish compiling"), "{err}");
    assert!(err.contains("within 0.3 s"), "{err}");
    assert!(err.contains("CHEVRON_NVCC_TIMEOUT"), "{err}");
    assert!(err.contains("CHEVRON_NVCC=0"), "{err}");
    let pids = std::fs::read_to_string(&pids).expect("the script ran");
    let pids: Vec<&str> = pids.split_whitespace().collect();
    assert_eq!(pids.len(), 2, "{pids:?}");
    for pid in pids {
        // Reaped (the shell) or killed and reparented, then reaped by init (the sleep):
        // give init a moment.
        let proc = PathBuf::from(format!("/proc/{pid}"));
        let deadline = Instant::now() + Duration::from_secs(5);
        while proc.exists() && !is_zombie(&proc) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            !proc.exists() || is_zombie(&proc),
            "process {pid} still runs"
        );
    }
}

#[cfg(unix)]
fn is_zombie(proc: &Path) -> bool {
    std::fs::read_to_string(proc.join("stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        })
        .unwrap_or(true)
}

#[test]
fn timeouts_are_seconds() {
    assert_eq!(parse_timeout(None), Ok(DEFAULT_TIMEOUT));
    assert_eq!(
        parse_timeout(Some("2.5".into())),
        Ok(Duration::from_millis(2500))
    );
    assert_eq!(
        parse_timeout(Some(" 120 ".into())),
        Ok(Duration::from_secs(120))
    );
    for bad in ["", "0", "-1", "soon", "inf", "NaN"] {
        let e = parse_timeout(Some(bad.into())).expect_err(bad);
        assert!(e.contains("is not a number of seconds"), "{e}");
    }
    assert_eq!(format_secs(Duration::from_secs(60)), "60");
    assert_eq!(format_secs(Duration::from_millis(2500)), "2.5");
}

#[test]
fn makefile_dependencies_are_read() {
    let d = "out.ptx : /a/k.cu \\\n    /a/my\\ header.h \\\n    /usr/include/stdio.h\n";
    assert_eq!(
        parse_deps(d),
        [
            PathBuf::from("/a/k.cu"),
            PathBuf::from("/a/my header.h"),
            PathBuf::from("/usr/include/stdio.h")
        ]
    );
    assert!(parse_deps("garbage").is_empty());
}

#[test]
fn entries_hit_only_while_the_source_and_its_headers_are_unchanged() {
    let dir = TempDir::new("cache");
    let header = dir.0.join("common.cuh");
    std::fs::write(&header, "#define SCALE 2\n").expect("header");
    let source = dir.0.join("k.cu");
    std::fs::write(&source, "#include \"common.cuh\"\n").expect("source");
    let entry = dir.0.join("cache").join("k.entry");
    let hash = hash_bytes(b"text of k.cu");
    store(
        &entry,
        &hash,
        &[source.clone(), header.clone()],
        &[],
        ".version 9.0\n",
    );
    assert_eq!(lookup(&entry, &hash).as_deref(), Some(".version 9.0\n"));
    // Another source text: a miss.
    assert_eq!(lookup(&entry, &hash_bytes(b"edited")), None);
    // An edited header: a miss.
    std::fs::write(&header, "#define SCALE 3\n").expect("edit");
    assert_eq!(lookup(&entry, &hash), None);
    // Restored, a hit again; deleted, a miss.
    std::fs::write(&header, "#define SCALE 2\n").expect("restore");
    assert!(lookup(&entry, &hash).is_some());
    std::fs::remove_file(&header).expect("rm");
    assert_eq!(lookup(&entry, &hash), None);
}

#[test]
fn a_header_placed_earlier_on_the_include_path_is_a_miss() {
    let dir = TempDir::new("shadow");
    let (first, second) = (dir.0.join("inc1"), dir.0.join("inc2"));
    std::fs::create_dir_all(&first).expect("inc1");
    std::fs::create_dir_all(&second).expect("inc2");
    let header = second.join("bounds.cuh");
    std::fs::write(&header, "#define BLOCK 1024\n#include <cuda_fp16.h>\n").expect("header");
    let source = dir.0.join("k.cu");
    let text = "#include \"bounds.cuh\"\n";
    std::fs::write(&source, text).expect("source");
    let dirs = [first.clone(), second.clone()];
    let absent = shadowing_candidates(&source, text, &[source.clone(), header.clone()], &dirs);
    // Next to the source and in inc1 for `bounds.cuh`; in both directories for the toolkit's
    // `cuda_fp16.h`, which nvcc found later.
    assert_eq!(
        absent,
        [
            dir.0.join("bounds.cuh"),
            first.join("bounds.cuh"),
            first.join("cuda_fp16.h"),
            second.join("cuda_fp16.h"),
        ]
    );
    let entry = dir.0.join("cache").join("k.entry");
    let hash = hash_bytes(text.as_bytes());
    store(
        &entry,
        &hash,
        &[source.clone(), header.clone()],
        &absent,
        ".version 9.0\n",
    );
    assert!(lookup(&entry, &hash).is_some());
    // A header of the same name placed before the one nvcc read: a miss.
    std::fs::write(first.join("bounds.cuh"), "#define BLOCK 64\n").expect("shadow");
    assert_eq!(lookup(&entry, &hash), None);
    std::fs::remove_file(first.join("bounds.cuh")).expect("rm");
    assert!(lookup(&entry, &hash).is_some());
    // One that would shadow a toolkit header: a miss too.
    std::fs::write(second.join("cuda_fp16.h"), "\n").expect("shadow");
    assert_eq!(lookup(&entry, &hash), None);
}
