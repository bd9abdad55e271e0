//! One entry's header read without parsing the module: what the runtime needs of a kernel it
//! loads, in a text it may not have parsed (a whole file embedded for module state).

use super::lex::{strip_comments, tokenize};
use super::parse::parse_directives;

/// The `.reqntid` of the entry `name` in `ptx`: the block a launch in the kernel's own block
/// shape (`_`) runs, read from the entry's header alone (the directives between its parameter
/// list and the `{` of its body, read as the module parser reads them). Missing dimensions are
/// 1, as ptxas reads them. `None` when the module has no such entry, the entry no `.reqntid`,
/// or its directives do not parse.
pub fn entry_reqntid(ptx: &str, name: &str) -> Option<[u32; 3]> {
    let mut from = 0;
    while let Some(at) = ptx[from..].find(".entry") {
        let start = from + at + ".entry".len();
        from = start;
        let rest = ptx[start..].trim_start();
        let Some(after) = rest.strip_prefix(name) else {
            continue;
        };
        // `.entry name(` or `.entry name (`, not `.entry name_longer(`.
        if !after.starts_with(|c: char| c == '(' || c.is_whitespace()) {
            continue;
        }
        let header = &after[..after.find('{')?];
        let directives = header
            .rfind(')')
            .map_or(header, |close| &header[close + 1..]);
        let text = strip_comments(directives).ok()?;
        let directives = parse_directives(&tokenize(&text), &mut 0).ok()?;
        return directives.reqntid.map(|d| d.dims);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::entry_reqntid;

    #[test]
    fn the_required_block_is_read_from_the_entrys_header() {
        let ptx = "\
.visible .entry other(\n\t.param .u32 p\n)\n.reqntid 64, 1, 1\n{\n\tret;\n}\n\
.visible .entry own_shape(\n\t.param .u64 own_shape_param_0\n)\n.reqntid 32, 4, 1\n.maxnreg 32\n{\n\tret;\n}\n\
.visible .entry own_shape_flat()\n.reqntid 0x80\n.maxntid 128, 1, 1\n{\n\tret;\n}\n\
.visible .entry free()\n.maxntid 256, 1, 1\n{\n\tret;\n}\n\
.visible .entry commented()\n// .reqntid 999\n.reqntid /* x */ 16, 2\n{\n\tret;\n}\n";
        assert_eq!(entry_reqntid(ptx, "own_shape"), Some([32, 4, 1]));
        assert_eq!(entry_reqntid(ptx, "other"), Some([64, 1, 1]));
        // One dimension, then another directive's numbers: those are not the block's.
        assert_eq!(entry_reqntid(ptx, "own_shape_flat"), Some([128, 1, 1]));
        assert_eq!(entry_reqntid(ptx, "free"), None);
        // Comments are not directives.
        assert_eq!(entry_reqntid(ptx, "commented"), Some([16, 2, 1]));
        assert_eq!(entry_reqntid(ptx, "missing"), None);
        // A prefix of another entry's name is not that entry.
        assert_eq!(entry_reqntid(ptx, "own"), None);
    }

    /// On nvcc's output for `__block_size__` kernels (`kernels/kernel_block.ptx`).
    #[test]
    fn the_required_block_is_read_from_nvcc_output() {
        let ptx = include_str!("../../../kernels/kernel_block.ptx");
        let entries = super::super::parse_entries(ptx).expect("kernel_block.ptx parses");
        assert!(!entries.is_empty());
        for entry in &entries {
            assert_eq!(
                entry_reqntid(ptx, &entry.name),
                entry.directives.reqntid.map(|d| d.dims),
                "{}",
                entry.name
            );
        }
        assert!(entries.iter().any(|e| e.directives.reqntid.is_some()));
    }
}
