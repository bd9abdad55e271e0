// A memset node sets 1-, 2- or 4-byte elements, the sizes the driver's memset sets.
use chevron::Graph;

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let mut y = stream.alloc_zeros::<f64>(256)?;
    let (graph, ()) = unsafe {
        Graph::build(&ctx, |b| {
            b.memset(&[], &mut y, 1.0f64)?;
            Ok(())
        })
    }?;
    drop(graph);
    Ok(())
}
