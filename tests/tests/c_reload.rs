//! Hot reload through the C API (`slangpack_reloader_*`): `reader/capi/tests/c/reload.c`,
//! compiled with `gcc -Wall -Wextra -Werror -pedantic` against the static library and run
//! under AddressSanitizer and UndefinedBehaviorSanitizer, reopens a package replaced by
//! rename, lists a layout change with the new buffer size while the replaced package stays
//! readable, and refuses a broken replacement once while keeping the package in use.

use slangpack_writer::bake::{self, BakeConfig};
use std::path::{Path, PathBuf};
use std::process::Command;

fn static_lib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let lib = exe.parent().unwrap().join("libslangpack_c.a");
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

fn shader(members: &str) -> String {
    format!(
        "struct Params {{ float4 color; {members} }};\nConstantBuffer<Params> gParams;\n\
         RWStructuredBuffer<float4> gOut;\n[shader(\"compute\")][numthreads(8, 1, 1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {{ gOut[id.x] = gParams.color; }}\n"
    )
}

fn bake_to(dir: &Path, members: &str, out: &Path) {
    let program = dir.join("tint.slang");
    std::fs::write(&program, shader(members)).unwrap();
    let mut config = BakeConfig::new(vec![program]);
    config.jobs = 1;
    bake::bake_to_file(&config, out).expect("the shader bakes");
}

#[test]
fn the_c_reloader_reports_a_layout_change_and_refuses_a_broken_file() {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("tint.slangpack");
    let new = dir.path().join("new.slangpack");
    let broken = dir.path().join("broken.slangpack");
    bake_to(dir.path(), "", &package);
    bake_to(dir.path(), "float4 tint; float4 extra;", &new);
    std::fs::write(&broken, b"SLANGPAK but nothing else that a package needs").unwrap();

    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reader/capi/tests/c/reload.c");
    let exe = dir.path().join("reload.bin");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reader/capi/include");
    let output = Command::new("gcc")
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-g",
            "-O1",
        ])
        .args(["-fsanitize=address,undefined", "-fno-sanitize-recover=all"])
        .arg("-I")
        .arg(&include)
        .arg(&source)
        .arg(static_lib())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run gcc: {e} (provisioning installs it)"));
    assert!(
        output.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let run = Command::new(&exe)
        .args([&package, &new, &broken])
        .args(["tint", "gParams"])
        .env("ASAN_OPTIONS", "detect_leaks=1:halt_on_error=1")
        .env("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        stdout,
        "same\nchange tint layout\nold 16 new 48\nrefused 1\nkept 1\ngeneration 1\n"
    );
}
