// The decoders of files read paths: each input is written to one scratch
// file per process, which the target then decodes.

use std::path::PathBuf;

pub fn scratch(data: &[u8], name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("othello-census-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let path = dir.join(name);
    std::fs::write(&path, data).expect("the scratch file written");
    path
}
