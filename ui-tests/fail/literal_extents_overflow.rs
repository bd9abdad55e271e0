use chevron::config;

fn main() {
    // Products of these extents overflow 32 and 64 bits: still plain limit errors.
    let _ = config!(<<<1, (4294967295, 4294967295, 2)>>>);
    let _ = config!(<<<(1024, 4, 4), 1, cluster = (2147483648, 2147483648, 4), non_portable_cluster>>>);
}
