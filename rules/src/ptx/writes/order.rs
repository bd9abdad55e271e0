//! The order functions are summarised in: the call graph's strongly connected components,
//! callees first, so that each function is summarised once after everything it calls (and a
//! cycle of recursion together, until it settles).

/// The strongly connected components of `edges` (Tarjan's, without recursion), each after
/// every component it reaches: callees first.
pub(super) fn components(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const NONE: usize = usize::MAX;
    let n = edges.len();
    let (mut index, mut low, mut on) = (vec![NONE; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0);
    let mut walk: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        walk.push((root, 0));
        while let Some(&(v, k)) = walk.last() {
            if let Some(&w) = edges[v].get(k) {
                if let Some(top) = walk.last_mut() {
                    top.1 += 1;
                }
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    walk.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            walk.pop();
            if let Some(&(p, _)) = walk.last() {
                low[p] = low[p].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}
