//! Any bytes, read as PTX (lossily, as text): the reader returns `Ok` or `Err`, and everything
//! done with its entries afterwards must not panic either.
#![no_main]

use chevron_cuda_rules::fit::{read_info, CooperativeUse, LaunchFacts};
use chevron_cuda_rules::ptx::{self, Expected};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(entries) = ptx::parse_entries(&text) else {
        return;
    };
    for entry in &entries {
        let _ = ptx::resolve_entry(&entries, &entry.name, "`fuzz.ptx`");
        // The launch rules over the entry's facts (its whole call graph), every message.
        let info = read_info(entry, &entry.name, "fuzz.ptx", false, CooperativeUse::ByPtx).leak();
        for cooperative in [false, true] {
            let facts = LaunchFacts {
                grid: Some([3, 1, 1]),
                block: Some([256, 1, 1]),
                kernel_block: false,
                cluster: Some(None),
                cooperative: Some(cooperative),
                programmatic_serialization: Some(true),
            };
            let _ = info.check(&facts).map_err(|b| info.message(b));
        }
        if let Some(call) = &entry.uses.unseen {
            let _ = call.describe();
        }
        for param in &entry.params {
            for expected in [
                Expected::Int(32),
                Expected::Float(64),
                Expected::Bool,
                Expected::Pointer,
                Expected::Value(None),
                Expected::Value(Some(u64::MAX)),
            ] {
                let _ = ptx::check_param(expected, param);
            }
            let _ = (param.describe(), param.suggest(), param.size_bytes());
        }
    }
    let _ = ptx::resolve_entry(&entries, "missing", "`fuzz.ptx`");
});
