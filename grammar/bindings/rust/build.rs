fn main() {
    let src_dir = std::path::Path::new("src");

    let mut c_config = cc::Build::new();
    c_config.std("c11").include(src_dir);
    // Generated parsers trip many harmless warnings; they are not ours to fix.
    c_config.warnings(false);
    #[cfg(target_env = "msvc")]
    c_config.flag("-utf-8");

    for file in ["parser.c", "scanner.c"] {
        let path = src_dir.join(file);
        c_config.file(&path);
        println!("cargo:rerun-if-changed={}", path.to_str().unwrap());
    }
    println!("cargo:rerun-if-changed=src/tree_sitter/parser.h");
    c_config.compile("tree-sitter-lean");
}
