use chevron::config;

fn main() {
    let _config = config!(<<<64>>>);
}
