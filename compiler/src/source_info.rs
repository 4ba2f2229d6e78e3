//! The source locations of a file after linking, as protoc rewrites them:
//! an interpreted option's location takes the path of the field it set
//! (and loses the locations of its name and value), and the locations of
//! options removed for their retention go.

use fastrs::descriptor::source_code_info::Location;

/// Moves the locations of interpreted options: each `(from, to)` pair
/// renames the location at `from` and drops the ones under it.
pub fn move_options(locations: &mut Vec<Location>, moved: &[(Vec<i32>, Vec<i32>)]) {
    if moved.is_empty() {
        return;
    }
    let map: std::collections::HashMap<&[i32], &[i32]> = moved
        .iter()
        .map(|(from, to)| (from.as_slice(), to.as_slice()))
        .collect();
    let mut out = Vec::with_capacity(locations.len());
    let mut under: Option<Vec<i32>> = None;
    for mut location in locations.drain(..) {
        if let Some(prefix) = &under {
            if location.path.starts_with(prefix) {
                continue;
            }
            under = None;
        }
        if let Some(to) = map.get(location.path.as_slice()) {
            under = Some(std::mem::replace(&mut location.path, to.to_vec()));
        }
        out.push(location);
    }
    *locations = out;
}

/// Drops the locations under each removed path.
pub fn remove(locations: &mut Vec<Location>, removed: &[Vec<i32>]) {
    if removed.is_empty() {
        return;
    }
    locations.retain(|l| !removed.iter().any(|r| l.path.starts_with(r)));
}
