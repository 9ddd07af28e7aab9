//! Many threads reading one memory-mapped package, and packages replaced while mapped: the
//! writer replaces a package by writing a new file and renaming it over the old one, so a
//! mapping keeps the old file's bytes and every open sees one whole package, old or new.

use slangpack_pack::write_atomically;
use slangpack_reader::Package;
use slangpack_tests::walk::walk;
use slangpack_writer::bake::{bake_to_file, BakeConfig};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const THREADS: usize = 8;

/// A compute shader whose one buffer is called `name`.
fn shader(name: &str) -> String {
    format!(
        "RWStructuredBuffer<uint> {name};\n\
         [shader(\"compute\")][numthreads(8, 1, 1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {{ {name}[id.x] = id.x * 3; }}\n"
    )
}

fn config(source: &Path) -> BakeConfig {
    let mut config = BakeConfig::new(vec![source.to_path_buf()]);
    config.jobs = 1;
    config
}

/// The path of the one binding of the package's one entry.
fn binding_name(package: &Package) -> String {
    let entry = package.load_at(0).expect("one entry");
    let bind = entry.bind();
    bind.string(bind.bindings()[0].path).to_owned()
}

#[test]
fn many_threads_read_one_mapped_package() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("examples.slangpack");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders");
    bake_to_file(&config(&examples), &out).expect("bake");
    // The expected walk comes from another opening: the threads below share a package none
    // of whose entries is loaded yet, and race to load them (each in its own order).
    let expected = walk(&Package::open(&out).expect("open"));
    let package = Package::open(&out).expect("open");
    assert!(package.is_mapped());
    let keys: Vec<String> = package.keys().map(str::to_owned).collect();
    std::thread::scope(|scope| {
        for t in 0..THREADS {
            let (package, keys) = (&package, &keys);
            scope.spawn(move || {
                for round in 0..25 {
                    for key in keys.iter().cycle().skip(t).take(keys.len()) {
                        let entry = package.load(key).expect("key");
                        let spirv = entry.entry_points().next().expect("ep").spirv();
                        assert_eq!(spirv[0], 0x0723_0203, "SPIR-V magic");
                    }
                    assert_eq!(walk(package), expected, "thread {t}, round {round}");
                    for key in keys {
                        let entry = package.load(key).expect("key");
                        let spirv = entry.entry_points().next().expect("ep").spirv();
                        assert_eq!(spirv[0], 0x0723_0203, "SPIR-V magic");
                    }
                }
            });
        }
    });
}

#[test]
fn a_rebake_leaves_the_old_mapping_intact_and_a_reopen_sees_the_new_package() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("s.slang");
    let out = dir.path().join("s.slangpack");
    std::fs::write(&source, shader("gOld")).unwrap();
    bake_to_file(&config(&source), &out).expect("first bake");
    let old = Package::open(&out).expect("open old");
    let old_bytes = old.as_bytes().to_vec();
    let old_walk = walk(&old);
    let old_inode = std::fs::metadata(&out).unwrap().ino();
    assert_eq!(binding_name(&old), "gOld");

    let stop = AtomicBool::new(false);
    let reads = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..THREADS / 2 {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    assert_eq!(walk(&old), old_walk);
                    assert_eq!(binding_name(&old), "gOld");
                    reads.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        std::fs::write(&source, shader("gNew")).unwrap();
        let rebake = bake_to_file(&config(&source), &out);
        stop.store(true, Ordering::Relaxed);
        rebake.expect("rebake");
    });
    assert!(reads.load(Ordering::Relaxed) > 0);

    assert_ne!(
        std::fs::metadata(&out).unwrap().ino(),
        old_inode,
        "the package was replaced by a new file, not rewritten in place"
    );
    assert_eq!(
        old.as_bytes(),
        &old_bytes[..],
        "the old mapping still reads the old file"
    );
    assert_eq!(walk(&old), old_walk);
    let new = Package::open(&out).expect("reopen");
    assert_eq!(binding_name(&new), "gNew");
    assert_ne!(new.as_bytes(), old.as_bytes());
    walk(&new);
}

#[test]
fn opens_racing_replacements_see_one_whole_package() {
    // Two packages written alternately over one path with the writer's atomic replace while
    // readers open and walk it in a loop: every open succeeds and is one of the two.
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("s.slang");
    let mut versions = Vec::new();
    for name in ["gFirst", "gSecond"] {
        std::fs::write(&source, shader(name)).unwrap();
        let path = dir.path().join(format!("{name}.slangpack"));
        bake_to_file(&config(&source), &path).expect("bake");
        versions.push(std::fs::read(&path).unwrap());
    }
    let out = dir.path().join("live.slangpack");
    write_atomically(&out, &versions[0]).unwrap();

    let stop = AtomicBool::new(false);
    let opens = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..THREADS / 2 {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let package = Package::open(&out).expect("every open sees a whole package");
                    assert!(versions.iter().any(|v| v == package.as_bytes()));
                    walk(&package);
                    opens.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        for round in 0..200 {
            write_atomically(&out, &versions[round % 2]).expect("replace");
        }
        stop.store(true, Ordering::Relaxed);
    });
    assert!(opens.load(Ordering::Relaxed) > 0);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "temporary files left behind: {leftovers:?}"
    );
}
