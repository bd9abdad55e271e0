use chevron::config;

fn main() {
    let _config = config!(<<<1, 256, &stream>>>);
}
