//! A grid or `shared` of a type that is not an integer: chevron's message, at the expression.
use chevron::config;

fn main() {
    let blocks = 4.0f32;
    let _ = config!(<<<blocks, 256>>>);
    let bytes = "1024";
    let _ = config!(<<<1, 256, shared = bytes>>>);
}
