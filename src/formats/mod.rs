//! Files: atomic writes and locks, the framed container (magic, version,
//! checksummed sections) that every binary format of the tool is written
//! in, and the DFS checkpoint. The layered engine's parts, buckets and
//! manifests live with that engine (`engine::layers::store`) and use the
//! framed container from here.

pub mod atomic;
pub mod checkpoint;
pub mod framed;
