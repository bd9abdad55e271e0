// Built with `--no-default-features --features cuda-12000`: conditional nodes name the feature
// that has them (`while`/`if`: CUDA 12.3; `switch` and `if` with `else`: CUDA 12.8).
use chevron::Graph;

fn main() -> Result<(), chevron::Error> {
    let stream = chevron::context(0)?.new_stream()?;
    let (_graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let c = capture.condition(1)?;
            capture.while_loop(&c, |_body| Ok(()))?;
            capture.if_then(&c, |_body| Ok(()))?;
            capture.if_else(&c, |_then, _body| Ok(()))?;
            capture.switch(&c, 2, |_k, _body| Ok(()))?;
            Ok(())
        })
    }?;
    Ok(())
}
