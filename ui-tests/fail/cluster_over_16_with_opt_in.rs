use chevron::config;

fn main() {
    // The non-portable opt-in allows 16 blocks, not more.
    let _ = config!(<<<(64, 4), 128, cluster = (8, 4), non_portable_cluster>>>);
}
