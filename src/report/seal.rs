//! The checksum of a result or estimate document (`checksum`): xxh3-64
//! over the document's canonical text without the checksum itself, so
//! that a number edited by hand (a +1 to a count, another seed) is found
//! when the document is read back, as the project's binary formats find
//! a flipped bit. It is no signature: whoever edits a document can
//! compute it again, so the documents' invariants are checked as well.

use serde_json::Value;

/// The field that holds the checksum, 16 hex digits.
pub const CHECKSUM: &str = "checksum";

/// Fields left out of the checksum besides itself: `id`, the name the
/// catalogue gives an estimate it stores whole.
const UNSEALED: [&str; 2] = [CHECKSUM, "id"];

/// The document's canonical text: object keys sorted at every depth,
/// no spaces, numbers and strings as serde_json writes them. Key order
/// and layout change nothing, so a document reformatted (`jq -S`, pretty
/// or compact) keeps its checksum; only a changed value breaks it.
fn canonical(v: &Value, top: bool, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().filter(|k| !(top && UNSEALED.contains(&k.as_str()))).collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).expect("a string"));
                out.push(':');
                canonical(&m[k], false, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, false, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The checksum `doc` should carry.
pub fn checksum(doc: &Value) -> String {
    let mut text = String::new();
    canonical(doc, true, &mut text);
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
}

/// Writes the document's checksum into it (the last step before it is
/// written).
pub fn seal(doc: &mut Value) {
    let sum = checksum(doc);
    doc[CHECKSUM] = Value::String(sum);
}

/// Whether the document carries the checksum of its content: Ok where it
/// does, an error naming the difference where it carries another or none.
pub fn verify(doc: &Value) -> Result<(), String> {
    let want = checksum(doc);
    match doc.get(CHECKSUM).and_then(Value::as_str) {
        Some(s) if s == want => Ok(()),
        Some(s) => Err(format!(
            "its checksum {s} is not that of its content ({want}): the document was edited or damaged after it \
             was written"
        )),
        None => Err("it carries no checksum, which its schema version requires: the field was removed".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Layout and key order keep the checksum; a changed value, a removed
    /// or added field break it; `id` is outside it.
    #[test]
    fn values_not_layout_are_sealed() {
        let mut doc = json!({"b": [1, 2.5, {"y": "s", "x": null}], "a": 340282366920938463463374607431768211455u128});
        seal(&mut doc);
        assert!(verify(&doc).is_ok());
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        assert!(verify(&back).is_ok());
        let mut with_id = back.clone();
        with_id["id"] = json!("run-1");
        assert!(verify(&with_id).is_ok());
        let mut edited = back.clone();
        edited["b"][0] = json!(2);
        assert!(verify(&edited).unwrap_err().contains("edited"));
        let mut added = back.clone();
        added["c"] = json!(0);
        assert!(verify(&added).is_err());
        let mut bare = back;
        bare.as_object_mut().unwrap().remove(CHECKSUM);
        assert!(verify(&bare).unwrap_err().contains("no checksum"));
    }
}
