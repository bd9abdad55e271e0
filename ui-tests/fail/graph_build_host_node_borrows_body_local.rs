// A host node's function is kept by the graph and called at every replay: it cannot borrow
// what the build's body creates (and drops when it returns).
use std::sync::atomic::{AtomicU32, Ordering};

use chevron::Graph;

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let (graph, ()) = unsafe {
        Graph::build(&ctx, |b| {
            let calls = AtomicU32::new(0); // freed when the body returns
            b.host(&[], || {
                calls.fetch_add(1, Ordering::Relaxed);
            })?;
            Ok(())
        })
    }?;
    drop(graph);
    Ok(())
}
