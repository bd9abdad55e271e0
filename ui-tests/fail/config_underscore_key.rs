//! A key that is no identifier (`_`, a keyword) after the positions is an unknown key, not a
//! position.
use chevron::config;

fn main() {
    let _underscore = config!(<<<1, 32, _ = 0>>>);
    let _keyword = config!(<<<1, 32, type = 0>>>);
}
