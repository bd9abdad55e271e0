//! Every numeric position gets the same literal checks: `shared` as the grid and the block.
use chevron::config;

fn main() {
    let _negative = config!(<<<1, 32, shared = -5>>>);
    let _too_big = config!(<<<1, 32, shared = 5000000000>>>);
    let _suffix = config!(<<<1, 32, shared = 1024u64>>>);
    let _float = config!(<<<1, 32, shared = 1.5>>>);
    let _float_grid = config!(<<<2.0, 32>>>);
    let _negative_carveout = config!(<<<1, 32, shared_carveout = -5>>>);
    let _parenthesized = config!(<<<1, 32, shared = (-(5))>>>);
    let _float_priority = config!(<<<1, 32, priority = 1.5>>>);
    let _priority_suffix = config!(<<<1, 32, priority = 1u32>>>);
}
