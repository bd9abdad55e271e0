//! The path generated code names chevron by: `::chevron` by default, or whatever name the user's
//! crate gave the `chevron-cuda` dependency (`gpu = { package = "chevron-cuda", … }`).
//!
//! - `launch!` and `config!` are `macro_rules!` wrappers in the facade that pass `$crate` in
//!   front of the input (`$crate; …`): that token names the facade from any crate, under any
//!   dependency name, through re-exports too, with no file read. [`set_from_input`] takes it.
//! - `#[kernel]` is an attribute, which `macro_rules!` cannot wrap: it reads the user's
//!   `Cargo.toml` ([`from_manifest`]) for the dependency whose `package` is `chevron-cuda`
//!   (in `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`, their `target.…`
//!   forms, and `workspace = true` entries resolved in the workspace's manifest). The option
//!   `crate = "path"` overrides it, for chevron reached through another crate's re-export.
//!
//! The path is set once per expansion ([`scope`]) and read by the code generators
//! ([`private`]), so that the generators keep their signatures.

mod manifest;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};

/// The facade's package name on crates.io.
const PACKAGE: &str = "chevron-cuda";
/// The facade's library name: what an unrenamed dependency is called in code.
const LIB: &str = "chevron";

thread_local! {
    /// The crate path of the expansion in progress; empty for `::chevron`.
    static CURRENT: RefCell<TokenStream> = RefCell::new(TokenStream::new());
}

/// Runs `f` with `krate` (`$crate`, `::gpu`, `::chevron`) as the path generated code names.
pub fn scope<R>(krate: TokenStream, f: impl FnOnce() -> R) -> R {
    let previous = CURRENT.with(|c| c.replace(krate));
    let out = f();
    CURRENT.with(|c| *c.borrow_mut() = previous);
    out
}

/// `<crate>::__private`, for generated paths.
pub fn private() -> TokenStream {
    private_at(Span::call_site())
}

/// `<crate>::__private` as source text (for [`crate::code::Code`]), for `#[kernel]` and
/// `#[kernels]`, whose crate path is a path from the manifest or from `crate = "…"`, always
/// writable as text (`launch!` and `config!` name chevron by `$crate`, whose meaning is its
/// hygiene: their code is made of tokens).
pub fn private_text() -> String {
    CURRENT.with(|c| {
        let krate = c.borrow();
        if krate.is_empty() {
            "::chevron::__private".to_string()
        } else {
            format!("{krate}::__private")
        }
    })
}

/// `<crate>::__private` with the tokens chevron adds spanned at `span` (so that rustc reports
/// at the user's tokens); a `$crate` keeps its own name resolution, which is what makes it
/// resolve, located at `span`.
pub fn private_at(span: Span) -> TokenStream {
    CURRENT.with(|c| {
        let krate = c.borrow();
        if krate.is_empty() {
            return quote_spanned!(span=> ::chevron::__private);
        }
        let mut out = TokenStream::new();
        for tt in krate.clone() {
            match tt {
                // Resolved as the facade's `$crate` (its own hygiene), reported at `span`.
                TokenTree::Ident(mut i) if i == "$crate" => {
                    i.set_span(i.span().located_at(span));
                    out.extend([TokenTree::Ident(i)]);
                }
                mut other => {
                    other.set_span(span);
                    out.extend([other]);
                }
            }
        }
        out.extend(quote_spanned!(span=> ::__private));
        out
    })
}

/// Splits `$crate ;` off the front of a `launch!`/`config!` input (what the facade's
/// `macro_rules!` wrappers put there); the input as written otherwise.
pub fn set_from_input(input: TokenStream) -> (TokenStream, TokenStream) {
    let mut iter = input.clone().into_iter();
    match (iter.next(), iter.next()) {
        (Some(TokenTree::Ident(k)), Some(TokenTree::Punct(p)))
            if k == "$crate" && p.as_char() == ';' =>
        {
            (TokenTree::Ident(k).into(), iter.collect())
        }
        _ => (TokenStream::new(), input),
    }
}

/// `::name` for a crate name; empty (meaning `::chevron`) for chevron's own name.
fn path_of(name: &str) -> TokenStream {
    if name == LIB {
        return TokenStream::new();
    }
    match syn::parse_str::<Ident>(name) {
        Ok(ident) => {
            let ident = Ident::new(&ident.to_string(), Span::call_site());
            quote!(::#ident)
        }
        Err(_) => TokenStream::new(),
    }
}

/// The path of chevron for `#[kernel]` in the crate being compiled, from its `Cargo.toml`
/// (`CARGO_MANIFEST_DIR`); `::chevron` (empty) when the manifest names no renamed
/// `chevron-cuda`, or cannot be read (a build without Cargo).
pub fn from_manifest() -> TokenStream {
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return TokenStream::new();
    };
    let manifest = PathBuf::from(dir).join("Cargo.toml");
    match cached_name(&manifest) {
        Some(name) => path_of(&name),
        None => TokenStream::new(),
    }
}

/// The manifests one answer was read from, with their text (`None`: not readable).
type Inputs = Vec<(PathBuf, Option<String>)>;

/// The dependency's name per manifest, read again when any manifest it was read from changes
/// (rust-analyzer keeps the macro loaded across edits). The hit needs each of those files to
/// have the same text, compared in full (an edit can keep the modification time): each is read
/// again, which is far cheaper than parsing it.
fn cached_name(manifest: &Path) -> Option<String> {
    type Cache = Mutex<Option<HashMap<PathBuf, (Inputs, Option<String>)>>>;
    static CACHE: Cache = Mutex::new(None);
    let mut guard = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let cache = guard.get_or_insert_with(HashMap::new);
    if let Some((inputs, name)) = cache.get(manifest) {
        if inputs.iter().all(|(path, text)| read_text(path) == *text) {
            return name.clone();
        }
    }
    let mut inputs = Inputs::new();
    let name = read_toml(manifest, &mut inputs).and_then(|table| {
        dependency_name(&table, |member| {
            workspace_manifest(manifest, member, &mut inputs)
                .and_then(|p| read_toml(&p, &mut inputs))
        })
    });
    cache.insert(manifest.to_path_buf(), (inputs, name.clone()));
    name
}

fn read_text(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The manifest at `path`, parsed; its text is recorded in `inputs`.
fn read_toml(path: &Path, inputs: &mut Inputs) -> Option<manifest::Table> {
    let text = read_text(path);
    inputs.push((path.to_path_buf(), text.clone()));
    manifest::parse(&text?)
}

/// The manifest of the workspace `manifest` belongs to: `package.workspace` if set, else the
/// nearest ancestor directory whose `Cargo.toml` has a `[workspace]` table.
fn workspace_manifest(
    manifest: &Path,
    member: &manifest::Table,
    inputs: &mut Inputs,
) -> Option<PathBuf> {
    let dir = manifest.parent()?;
    if let Some(explicit) = member
        .get("package")
        .and_then(|p| p.get("workspace"))
        .and_then(|w| w.as_str())
    {
        return Some(dir.join(explicit).join("Cargo.toml"));
    }
    dir.ancestors().find_map(|d| {
        let candidate = d.join("Cargo.toml");
        let table = read_toml(&candidate, inputs)?;
        table.contains_key("workspace").then_some(candidate)
    })
}

/// The crate name chevron has in the crate whose manifest is `manifest`: the key of the
/// dependency on `chevron-cuda` (with `-` as `_`) when it is renamed, `chevron` when it is
/// not, or when the manifest is chevron's own (its tests, examples and doctests). `workspace`
/// gives the workspace's manifest, for `key = { workspace = true }` entries. `None` when no
/// dependency is on `chevron-cuda`.
fn dependency_name(
    manifest: &manifest::Table,
    workspace: impl FnOnce(&manifest::Table) -> Option<manifest::Table>,
) -> Option<String> {
    let own = manifest
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str());
    if own == Some(PACKAGE) {
        return Some(LIB.to_string());
    }
    let kinds = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut tables: Vec<&manifest::Table> = kinds
        .iter()
        .filter_map(|k| manifest.get(*k).and_then(|t| t.as_table()))
        .collect();
    if let Some(targets) = manifest.get("target").and_then(|t| t.as_table()) {
        for target in targets.values().filter_map(|t| t.as_table()) {
            tables.extend(
                kinds
                    .iter()
                    .filter_map(|k| target.get(*k).and_then(|t| t.as_table())),
            );
        }
    }
    let mut workspace = Some(workspace);
    let mut workspace_deps: Option<Option<manifest::Table>> = None;
    for table in tables {
        for (key, spec) in table {
            let inherited = spec
                .get("workspace")
                .and_then(|w| w.as_bool())
                .unwrap_or(false);
            let package = if inherited {
                // The package (and any rename) is the workspace's entry under the same key.
                let deps = workspace_deps.get_or_insert_with(|| {
                    workspace.take().and_then(|f| f(manifest)).and_then(|root| {
                        root.get("workspace")?
                            .get("dependencies")?
                            .as_table()
                            .cloned()
                    })
                });
                deps.as_ref()
                    .and_then(|d| d.get(key))
                    .and_then(|s| s.get("package"))
                    .and_then(|p| p.as_str())
                    .unwrap_or(key)
                    .to_string()
            } else {
                spec.get("package")
                    .and_then(|p| p.as_str())
                    .unwrap_or(key)
                    .to_string()
            };
            if package == PACKAGE {
                return Some(if key == PACKAGE {
                    LIB.to_string()
                } else {
                    key.replace('-', "_")
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(manifest: &str, workspace: Option<&str>) -> Option<String> {
        let table = manifest::parse(manifest).expect("a manifest");
        dependency_name(&table, |_| {
            workspace.map(|w| manifest::parse(w).expect("a workspace"))
        })
    }

    #[test]
    fn the_dependency_is_found_under_any_name() {
        let plain = "[package]\nname = \"app\"\n[dependencies]\nchevron-cuda = \"0.1\"\n";
        assert_eq!(name(plain, None).as_deref(), Some("chevron"));
        for (manifest, want) in [
            ("[dependencies]\ngpu = { package = \"chevron-cuda\", version = \"0.1\" }", "gpu"),
            ("[dependencies.my-gpu]\npackage = 'chevron-cuda'\nversion = \"0.1\"", "my_gpu"),
            ("[dependencies]\ngpu.package = \"chevron-cuda\"\ngpu.version = \"0.1\"", "gpu"),
            ("[dev-dependencies]\ngpu = { package = \"chevron-cuda\" }", "gpu"),
            (
                "[target.'cfg(unix)'.dependencies]\ncuda = { package = \"chevron-cuda\" }",
                "cuda",
            ),
            (
                "[dependencies]\ngpu = {\n  package = \"chevron-cuda\", # TOML 1.1\n  version = \"0.1\",\n}",
                "gpu",
            ),
        ] {
            assert_eq!(name(manifest, None).as_deref(), Some(want), "{manifest}");
        }
    }

    #[test]
    fn workspace_entries_are_resolved_in_the_workspace() {
        let member = "[package]\nname = \"app\"\n[dependencies]\ngpu = { workspace = true }";
        let root = "[workspace]\n[workspace.dependencies]\ngpu = { package = \"chevron-cuda\", version = \"0.1\" }";
        assert_eq!(name(member, Some(root)).as_deref(), Some("gpu"));
        let member = "[dependencies]\nchevron-cuda.workspace = true";
        let root = "[workspace.dependencies]\nchevron-cuda = \"0.1\"";
        assert_eq!(name(member, Some(root)).as_deref(), Some("chevron"));
        // Another workspace dependency under the same key is not chevron.
        let member = "[dependencies]\ngpu = { workspace = true }";
        let root = "[workspace.dependencies]\ngpu = \"1\"";
        assert_eq!(name(member, Some(root)), None);
    }

    #[test]
    fn an_edited_manifest_is_read_again() {
        let dir = std::env::temp_dir().join(format!("chevron-krate-{}", std::process::id()));
        let member = dir.join("app");
        std::fs::create_dir_all(&member).expect("temp dir");
        let (root, manifest) = (dir.join("Cargo.toml"), member.join("Cargo.toml"));
        let write = |path: &Path, text: &str| std::fs::write(path, text).expect("write");
        write(&root, "[workspace]\n");
        write(
            &manifest,
            "[dependencies]\ngpu = { package = \"chevron-cuda\" }\n",
        );
        assert_eq!(cached_name(&manifest).as_deref(), Some("gpu"));
        // The same length, and the modification time set back: only the text differs.
        let modified = std::fs::metadata(&manifest)
            .and_then(|m| m.modified())
            .expect("mtime");
        write(
            &manifest,
            "[dependencies]\ngpx = { package = \"chevron-cuda\" }\n",
        );
        std::fs::File::options()
            .write(true)
            .open(&manifest)
            .and_then(|f| f.set_modified(modified))
            .expect("set mtime");
        assert_eq!(cached_name(&manifest).as_deref(), Some("gpx"));
        // An inherited entry follows edits of the workspace's manifest too.
        write(&manifest, "[dependencies]\ngpu = { workspace = true }\n");
        write(
            &root,
            "[workspace]\n[workspace.dependencies]\ngpu = { package = \"chevron-cuda\" }\n",
        );
        assert_eq!(cached_name(&manifest).as_deref(), Some("gpu"));
        write(
            &root,
            "[workspace]\n[workspace.dependencies]\ngpu = \"1\"\n",
        );
        assert_eq!(cached_name(&manifest), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn chevrons_own_manifest_and_unrelated_ones() {
        let own = "[package]\nname = \"chevron-cuda\"\n[dev-dependencies]\ntrybuild = \"1\"";
        assert_eq!(name(own, None).as_deref(), Some("chevron"));
        let none = "[package]\nname = \"app\"\n[dependencies]\nchevron = \"1\"";
        assert_eq!(name(none, None), None);
    }

    #[test]
    fn generated_paths_follow_the_scope() {
        let p = private().to_string();
        assert_eq!(p, ":: chevron :: __private");
        let p = scope(path_of("gpu"), || private().to_string());
        assert_eq!(p, ":: gpu :: __private");
        assert_eq!(
            scope(path_of("chevron"), || private().to_string()),
            p.replace("gpu", "chevron")
        );
        // Restored after the scope.
        assert_eq!(private().to_string(), ":: chevron :: __private");
    }
}
