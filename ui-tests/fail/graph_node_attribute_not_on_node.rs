// Only kinds the driver accepts on a graph kernel node can be set on one.
use chevron::{Graph, GraphNode, ProgrammaticSerialization};

fn set(graph: &mut Graph<'_>, node: &GraphNode) {
    let _ = graph.set_node_attribute(node, ProgrammaticSerialization);
}

fn main() {
    let _ = set;
}
