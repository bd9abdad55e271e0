//! Code generation for `#[kernel]`: a type named after the kernel whose associated functions
//! are `launch` and `function`, the kernel's cache, and the compile-time assertions rustc
//! checks for us.
//!
//! Why a type and not a module: a module's `use super::*` sees the enclosing module, not a
//! function body, so a declaration inside a body could not use the body's `use`s. A type and
//! its `impl` are items of the declaration's own scope: parameter types resolve exactly where
//! they are written. The type is a braced struct, so its name takes no place in the value
//! namespace (a parameter named like the kernel stays a plain binding).
//!
//! Hygiene: the user's parameter names are the generated functions' parameters, so every local
//! the expansion introduces (and every call from a body that also holds user parameters) is
//! spanned `Span::mixed_site()` or goes through `Self::`: user names cannot see them, nor
//! shadow them. The kernel's static lives inside a function with no user names in scope, since
//! a parameter named like a static would be read as a pattern of that static.

use proc_macro2::{Literal, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::{Attribute, Ident, LitStr, Type, Visibility};

use super::ast::{KernelDecl, KernelItem, KernelParam, ResolvedSource, Wording};
use chevron_cuda_spec::fit::{CooperativeUse, Fact, InfoText};
use chevron_cuda_spec::param::{Class, CppParam, Num};

/// The items a checked declaration expands to: the type, its `impl`s and the assertions.
pub fn expand_kernel(decl: &KernelDecl) -> TokenStream {
    let p = crate::krate::private();
    let KernelDecl {
        attrs,
        vis,
        ident,
        params,
        source,
        ..
    } = decl;
    let info = info_items(decl.info.as_ref(), decl.no_upstream_reads, decl.cooperative);
    // Where the kernel calls code its PTX does not hold, the rules resting on absence stay
    // quiet: the launch docs say which, and why.
    let unseen_doc = decl
        .info
        .as_ref()
        .map(|t| &t.messages[8])
        .filter(|m| !m.is_empty())
        .map(|m| {
            let text = format!(" Not checked: {m}.");
            quote!(#[doc = ""] #[doc = #text])
        });
    let name = LitStr::new(&super::ast::kernel_name(ident), ident.span());
    let (stream, config) = internal_names(params.iter().map(|q| &q.ident));
    let checked = hygienic("__chevron_checked");
    let args = hygienic("__chevron_params");

    let kernel = match source {
        ResolvedSource::Ptx {
            abs_path,
            entry,
            variants,
        } => {
            let path = LitStr::new(abs_path, Span::call_site());
            let entry = LitStr::new(entry, Span::call_site());
            if variants.is_empty() {
                quote!(#p::Kernel::ptx(#name, #entry, #path, #p::include_str!(#path)))
            } else {
                let all = std::iter::once(abs_path).chain(variants).map(|v| {
                    let v = LitStr::new(v, Span::call_site());
                    quote!(#p::PtxVariant { path: #v, text: #p::include_str!(#v) })
                });
                quote!(#p::Kernel::ptx_variants(#name, #entry, &[#(#all),*]))
            }
        }
        ResolvedSource::Cuda {
            abs_path,
            entry,
            program,
        } => {
            let path = LitStr::new(abs_path, Span::call_site());
            let entry = match entry {
                Some(e) => quote!(#p::Some(#e)),
                None => quote!(#p::None),
            };
            let sig = params.iter().map(|q| signature_entry(q, &p));
            if program.is_plain() {
                quote!(#p::Kernel::cuda(#name, #entry, #path, #p::include_str!(#path), &[#(#sig),*]))
            } else {
                let program = super::cuda::program_tokens(program, &p);
                quote!(#p::Kernel::cuda_program(
                    #name, #entry, #path, #p::include_str!(#path), &#program, &[#(#sig),*]
                ))
            }
        }
    };

    let scope = ItemAttrs::split(attrs);
    let impl_attrs = &scope.shared;
    let asserts = params.iter().map(|q| param_check(q, impl_attrs));
    let decls = params.iter().map(|q| {
        let (i, t) = (&q.ident, &q.ty);
        quote!(#i: #t)
    });
    let mut prepare = Vec::new();
    let mut pointers = Vec::new();
    for (k, q) in params.iter().enumerate() {
        // The slots of device buffers record this launch on the buffers' events when dropped,
        // after the launch is enqueued: cudarc's multi-stream ordering, as in its launch
        // builder. Which kind of slot is for the parameter's type to say (`KernelParam`).
        // The parameter's pointer is taken as soon as its slot is made: for a value, the
        // value's address, which the compiler then sees without reading the slot back.
        let (arg, slot) = slot_names(k);
        let ptr = hygienic(&format!("__chevron_param_{k}"));
        let (i, param) = (&q.ident, param_expr(q));
        prepare.push(quote! {
            let mut #arg = #i;
            let #slot = (#param.slot)(&mut #arg, #stream);
            let #ptr = #slot.param();
        });
        pointers.push(quote!(#ptr));
    }
    let names = params.iter().map(|q| &q.ident);
    let launcher = launcher(
        &p,
        ident,
        quote!(#(#decls,)*),
        quote!(unsafe { Self::launch(self.stream, self.config, #(#names),*) }),
    );
    let decls = params.iter().map(|q| {
        let (i, t) = (&q.ident, &q.ty);
        quote!(#i: #t)
    });
    let n = Literal::usize_unsuffixed(params.len());
    let launch_doc = launch_doc(&ident.to_string(), &stream, &config);
    let function_doc = format!(
        " The `CUfunction` of `{ident}` in `ctx`, loading its module the first time: for \
         occupancy queries or cudarc's own launch builder."
    );
    let ty = kernel_type(&p, &scope, vis, ident);
    let occupancy = expand_occupancy(&p, ident, impl_attrs, false);
    let typed = typed_impl(&p, ident, impl_attrs);

    let update = graph_update(&p, ident, &name, params);

    quote! {
        #ty
        #occupancy
        #typed

        #(#impl_attrs)*
        #[allow(deprecated)]
        impl #ident<'_> {
            /// The kernel's cache: its module and function per context, loaded on first use.
            #[doc(hidden)]
            #[inline]
            fn __chevron_kernel() -> &'static #p::Kernel {
                static KERNEL: #p::Kernel = #kernel;
                &KERNEL
            }

            #info

            #(#[doc = #launch_doc])*
            #unseen_doc
            #[allow(clippy::too_many_arguments)]
            #[inline]
            pub unsafe fn launch(
                #stream: &#p::CudaStream,
                #config: &#p::LaunchConfig<'_>,
                #(#decls,)*
            ) -> #p::Result<(), #p::Error> {
                // The function, the config's limits and the kernel's rules (folded at compile
                // time), before the arguments are taken.
                let #checked = Self::__chevron_kernel().__check(
                    const { #p::LaunchRules::of(&Self::__CHEVRON_INFO) },
                    #stream,
                    #config,
                )?;
                #(#prepare)*
                let mut #args: [*mut #p::c_void; #n] = [#(#pointers),*];
                // SAFETY: the parameters match the PTX entry (checked when the declaration was
                // compiled, or against NVRTC's output before the first launch); what the
                // kernel does with them is the caller's promise.
                unsafe { #checked.launch(&mut #args) }
            }

            #launcher

            #update

            #[doc = #function_doc]
            #[allow(dead_code)]
            pub fn function(
                ctx: &#p::Arc<#p::CudaContext>,
            ) -> #p::Result<#p::CudaFunction, #p::Error> {
                Self::__chevron_kernel().function(ctx)
            }
        }

        #(#asserts)*
    }
}

/// The user's attributes, split by where they go: all on the type, and the conditional and
/// lint attributes also on the `impl`s and assertions (a `#[cfg]` must remove them all).
struct ItemAttrs<'a> {
    all: Vec<&'a Attribute>,
    shared: Vec<&'a Attribute>,
    has_docs: bool,
}

impl<'a> ItemAttrs<'a> {
    fn split(attrs: impl IntoIterator<Item = &'a Attribute>) -> Self {
        let all: Vec<&Attribute> = attrs.into_iter().collect();
        const SHARED: [&str; 5] = ["cfg", "allow", "warn", "deny", "forbid"];
        let shared = all
            .iter()
            .copied()
            .filter(|a| {
                a.path()
                    .get_ident()
                    .is_some_and(|i| SHARED.iter().any(|s| i == s))
            })
            .collect();
        let has_docs = all.iter().any(|a| a.path().is_ident("doc"));
        Self {
            all,
            shared,
            has_docs,
        }
    }
}

/// The kernel's launch rules for `launch!`'s compile-time checks and the runtime's: the const
/// `__CHEVRON_INFO` (only consts, valid in a module and in an `impl`).
pub fn info_items(
    info: Option<&InfoText>,
    no_upstream_reads: bool,
    cooperative: CooperativeUse,
) -> TokenStream {
    let p = crate::krate::private();
    let cooperative = match cooperative {
        CooperativeUse::ByPtx => quote!(#p::CooperativeUse::ByPtx),
        CooperativeUse::Optional => quote!(#p::CooperativeUse::Optional),
        CooperativeUse::CoResident => quote!(#p::CooperativeUse::CoResident),
    };
    let value = match info {
        None => quote!(#p::KernelInfo {
            no_upstream_reads: #no_upstream_reads,
            cooperative: #cooperative,
            ..#p::KernelInfo::UNKNOWN
        }),
        Some(text) => {
            let i = &text.info;
            let dims = |d: Option<[u32; 3]>| match d {
                Some([x, y, z]) => quote!(#p::Some([#x, #y, #z])),
                None => quote!(#p::None),
            };
            let (reqntid, maxntid, cluster) = (dims(i.reqntid), dims(i.maxntid), dims(i.cluster));
            let rank = match i.max_cluster_rank {
                Some(r) => quote!(#p::Some(#r)),
                None => quote!(#p::None),
            };
            let fact = |f: Fact| match f {
                Fact::Yes => quote!(#p::Fact::Yes),
                Fact::No => quote!(#p::Fact::No),
                Fact::Unknown => quote!(#p::Fact::Unknown),
            };
            let (waits, triggers, grid_sync) = (fact(i.waits), fact(i.triggers), fact(i.grid_sync));
            let (explicit, by_clusters) = (i.explicit_cluster, i.blocks_are_clusters);
            let [block, cl, rank_m, unclustered, grid, pdl, not_coop, needless, unseen] =
                &text.messages;
            quote!(#p::KernelInfo {
                known: true,
                reqntid: #reqntid,
                maxntid: #maxntid,
                cluster: #cluster,
                max_cluster_rank: #rank,
                explicit_cluster: #explicit,
                blocks_are_clusters: #by_clusters,
                waits: #waits,
                triggers: #triggers,
                grid_sync: #grid_sync,
                no_upstream_reads: #no_upstream_reads,
                cooperative: #cooperative,
                messages: #p::Messages {
                    block: #block,
                    cluster: #cl,
                    cluster_rank: #rank_m,
                    unclustered: #unclustered,
                    grid: #grid,
                    pdl_wait: #pdl,
                    not_cooperative: #not_coop,
                    needless_cooperative: #needless,
                    unseen: #unseen,
                },
            })
        }
    };
    // What `launch!` uses for `programmatic_event`: deprecated (a warning) when the PTX shows
    // the kernel never triggers its dependents.
    let no_trigger = info.and_then(|t| t.no_trigger.as_deref());
    let event_lint = crate::warn::constant(
        &Ident::new(crate::warn::NO_TRIGGER, Span::call_site()),
        no_trigger.is_some(),
        no_trigger.unwrap_or_default(),
    );
    quote! {
        /// What the kernel's PTX fixes about its launches; `launch!` checks literal launches
        /// against it at compile time, the launch checks every config before it runs.
        #[doc(hidden)]
        #[allow(dead_code)]
        pub const __CHEVRON_INFO: #p::KernelInfo = #value;
        #event_lint
    }
}

/// The kernel's type: `struct saxpy<'a>`, with the declaration's docs, attributes and
/// visibility. Its value is what `saxpy::__on(stream, &config)` returns for `launch!`.
fn kernel_type(
    p: &TokenStream,
    attrs: &ItemAttrs<'_>,
    vis: &Visibility,
    ident: &Ident,
) -> TokenStream {
    let all = &attrs.all;
    let doc = (!attrs.has_docs).then(|| {
        let text = format!(
            " The CUDA kernel `{ident}` (`#[kernel]`): launch it with `launch!` or \
             [`{ident}::launch`]; [`{ident}::function`] gives its `CUfunction`."
        );
        quote!(#[doc = #text])
    });
    quote! {
        #(#all)*
        #doc
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident<'a> {
            stream: &'a #p::CudaStream,
            config: &'a #p::LaunchConfig<'a>,
        }
    }
}

/// What `launch!` calls: `KERNEL::__on(stream, &config).launch_kernel(args…)`, a method that
/// takes exactly the kernel's parameters, so rustc counts and checks them as the user wrote
/// them. Its name is what rustc's messages show for a launch outside `unsafe` (``call to unsafe
/// function `saxpy::<'_>::launch_kernel` ``): a type cannot have both an associated function and
/// a method `launch`, so it says what it does instead.
fn launcher(
    p: &TokenStream,
    kernel: &Ident,
    params: TokenStream,
    body: TokenStream,
) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(dead_code)]
        pub fn __on<'a>(
            stream: &'a #p::CudaStream,
            config: &'a #p::LaunchConfig<'a>,
        ) -> #kernel<'a> {
            #kernel { stream, config }
        }

        #[doc(hidden)]
        #[inline]
        #[allow(clippy::too_many_arguments, unused_variables, dead_code)]
        #[must_use = #MUST_USE]
        pub unsafe fn launch_kernel(self, #params) -> #p::Result<(), #p::Error> {
            #body
        }
    }
}

/// What rustc adds to its warning for a launch whose `Result` is dropped (as the runtime's
/// `launched` says for `dyn` launches).
const MUST_USE: &str = "a kernel launch can fail: handle its error with `?` (or `match` on it); \
                        `let _ =` would hide a failed launch";

/// `TypedKernel`, through which `launch!` reaches the kernel: anything else in the kernel's
/// place gets that trait's message.
fn typed_impl(p: &TokenStream, ident: &Ident, impl_attrs: &[&Attribute]) -> TokenStream {
    quote! {
        #(#impl_attrs)*
        #[allow(deprecated)]
        impl #p::TypedKernel for #ident<'_> {
            const INFO: #p::KernelInfo = Self::__CHEVRON_INFO;
            type Stream = #p::CudaStream;
            type On<'a> = #ident<'a>;
            #[inline]
            fn __on<'a>(
                stream: &'a #p::CudaStream,
                config: &'a #p::LaunchConfig<'a>,
            ) -> #ident<'a> {
                #ident { stream, config }
            }
        }
    }
}

/// The occupancy queries, in their own `impl`: `occupancy`, `max_cooperative_grid` and
/// `max_active_clusters`, each honouring the launch configuration (shared memory opt-in, launch
/// attributes). `stub`: bodies that never run, for a rejected declaration.
fn expand_occupancy(
    p: &TokenStream,
    ident: &Ident,
    impl_attrs: &[&Attribute],
    stub: bool,
) -> TokenStream {
    let body = |call: TokenStream| {
        if stub {
            quote!({ loop {} })
        } else {
            quote!({ Self::__chevron_kernel().#call })
        }
    };
    let occupancy = body(quote!(occupancy(ctx, config)));
    let cooperative =
        body(quote!(max_cooperative_grid(ctx, <#p::Dim3 as #p::From<B>>::from(block), shared)));
    let clusters = body(quote!(max_active_clusters(ctx, config)));
    let doc = |text: String| -> Vec<String> { text.lines().map(|l| format!(" {l}")).collect() };
    let occupancy_doc = doc(format!(
        "How many blocks of `{ident}` fit on one multiprocessor with `config`'s block and \
         shared memory, the device's multiprocessors, active warps, and the limiting resource \
         (`cuOccupancyMaxActiveBlocksPerMultiprocessor`).\n\n\
         Dynamic shared memory over 48 KiB is opted into first, as a launch would."
    ));
    let cooperative_doc = doc(format!(
        "The largest grid, in blocks, of a cooperative launch of `{ident}` with blocks of \
         `block` and `shared` bytes of dynamic shared memory: multiprocessors × blocks per \
         multiprocessor, the limit behind `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`."
    ));
    let clusters_doc = doc(format!(
        "How many clusters of `{ident}` launched with `config` can be resident at once \
         (`cuOccupancyMaxActiveClusters` with the config's grid, block, shared memory and \
         launch attributes, its `cluster` included)."
    ));
    quote! {
        #(#impl_attrs)*
        #[allow(deprecated)]
        impl #ident<'_> {
            #(#[doc = #occupancy_doc])*
            #[allow(dead_code, unused_variables)]
            pub fn occupancy(
                ctx: &#p::Arc<#p::CudaContext>,
                config: &#p::LaunchConfig<'_>,
            ) -> #p::Result<#p::Occupancy, #p::Error> #occupancy

            #(#[doc = #cooperative_doc])*
            #[allow(dead_code, unused_variables)]
            pub fn max_cooperative_grid<B>(
                ctx: &#p::Arc<#p::CudaContext>,
                block: B,
                shared: u32,
            ) -> #p::Result<u32, #p::Error>
            where
                #p::Dim3: #p::From<B>,
            #cooperative

            #(#[doc = #clusters_doc])*
            #[allow(dead_code, unused_variables)]
            pub fn max_active_clusters(
                ctx: &#p::Arc<#p::CudaContext>,
                config: &#p::LaunchConfig<'_>,
            ) -> #p::Result<u32, #p::Error> #clusters
        }
    }
}

/// `update`: sets the arguments of a node of this kernel captured in a graph, for the following
/// replays. It takes the kernel's parameters as declared and goes through `Graph::set_params`,
/// which checks that the node is of this graph and this kernel. The generated functions take the
/// graph `&mut` and call its shared-borrow forms (`__set_params`, `__set_params_keeping`), so
/// that the order stream stays borrowed from the graph instead of cloned per update.
fn graph_update(
    p: &TokenStream,
    kernel: &Ident,
    name: &LitStr,
    params: &[KernelParam],
) -> TokenStream {
    let taken = |want: &str| params.iter().any(|q| q.ident == want);
    let pick = |want: &str| {
        let mut name = want.to_string();
        while taken(&name) {
            name = format!("__chevron_{name}");
        }
        hygienic(&name)
    };
    let (graph, node) = (pick("graph"), pick("node"));
    let stream = hygienic("__chevron_stream");
    let func = hygienic("__chevron_func");
    let args = hygienic("__chevron_params");
    let mut decls = Vec::new();
    let mut prepare = Vec::new();
    let mut pointers = Vec::new();
    for (k, q) in params.iter().enumerate() {
        let (i, ty) = (&q.ident, &q.ty);
        decls.push(quote!(#i: #ty));
        // A buffer's slot orders it after its earlier uses on other streams (cudarc's events),
        // on the stream the next replay follows; it records no event (the graph runs later,
        // and dropping it is what orders later uses).
        let (slot, pointer) = update_slot(k, q, &stream);
        prepare.push(slot);
        pointers.push(pointer);
    }
    let n = Literal::usize_unsuffixed(params.len());
    let doc = format!(
        " Sets the arguments of `{kernel}`'s node `{node}` in `{graph}` for the following \
         replays, without instantiating the graph again (`cuGraphExecKernelNodeSetParams`); the \
         node's grid, block and attributes stay as captured. Allocates nothing. Each buffer is \
         ordered after its earlier uses on other streams at every call (two `cuStreamWaitEvent` \
         for a written one); `update_ordered` takes buffers ordered once for many \
         updates.\n\n # Safety\n \
         As for `launch`: the captured grid and these values must keep every access of the \
         kernel inside its buffers, and a buffer given here must stay alive, and untouched by \
         the host and other streams, while the graph may replay with it: until the node is \
         updated again or the graph is dropped (which waits for the last replay). Unlike the \
         buffers of the capture, these are not borrowed for the graph's lifetime, so that one \
         buffer can be given to many updates.\n\n # Errors\n `Error::Graph` when `{node}` is \
         of another graph or another kernel; `Error::Driver` when the driver rejects the update."
    );
    let scalars = update_scalars(p, kernel, name, params, (&graph, &node));
    let ordered = update_ordered(p, kernel, name, params, (&graph, &node));
    quote! {
        #scalars
        #ordered

        #[doc = #doc]
        #[allow(clippy::too_many_arguments, dead_code)]
        #[inline]
        pub unsafe fn update(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#decls,)*
        ) -> #p::Result<(), #p::Error> {
            let #func = Self::__chevron_kernel().get(#graph.context())?;
            let #stream = #graph.order_stream();
            #(#prepare)*
            let mut #args: [*mut #p::c_void; #n] = [#(#pointers),*];
            // SAFETY: the parameters match the PTX entry, as for `launch`; the rest is the
            // caller's promise.
            unsafe { #graph.__set_params(#node, #func, #p::Some(#name), &mut #args) }
        }
    }
}

/// One argument of a graph update, ordered by its slot on `stream` (the stream the next replay
/// follows) without recording an event (the graph runs later; dropping it is what orders later
/// uses): the statements that make the slot, and the parameter pointer it gives.
fn update_slot(k: usize, q: &KernelParam, stream: &Ident) -> (TokenStream, TokenStream) {
    let i = &q.ident;
    let (arg, slot) = slot_names(k);
    let param = param_expr(q);
    let prepare = quote! {
        let mut #arg = #i;
        let mut #slot = (#param.slot)(&mut #arg, &#stream);
        #slot.skip_record();
    };
    (prepare, quote!(#slot.param()))
}

/// `update_ordered`, for kernels with buffer parameters whose types name their element type:
/// `update` with each buffer given as an `Ordered` (written and read buffers) or `OrderedRead`
/// (read buffers) of the graph, made once by `graph.ordered(&mut buffer)` for any number of
/// updates: the pointer is copied, without the per-update waits of `update`.
fn update_ordered(
    p: &TokenStream,
    kernel: &Ident,
    name: &LitStr,
    params: &[KernelParam],
    (graph, node): (&Ident, &Ident),
) -> TokenStream {
    // Written as references: device buffers (as for `update_scalars`).
    let is_buffer = |q: &KernelParam| q.by_ref;
    if !params.iter().any(is_buffer) {
        return TokenStream::new();
    }
    let func = hygienic("__chevron_func");
    let args = hygienic("__chevron_params");
    let stream = hygienic("__chevron_stream");
    let mut decls = Vec::new();
    let mut prepare = vec![quote! {
        let #stream = #graph.order_stream();
    }];
    let mut pointers = Vec::new();
    for (k, q) in params.iter().enumerate() {
        let (i, ty) = (&q.ident, &q.ty);
        if is_buffer(q) {
            // A type alias names no element type: no `update_ordered` then.
            let Some(elem) = buffer_elem(ty) else {
                return TokenStream::new();
            };
            let ptr = hygienic(&format!("__chevron_ptr_{k}"));
            if matches!(ty, syn::Type::Reference(r) if r.mutability.is_some()) {
                decls.push(quote!(#i: &#p::runtime::Ordered<'_, #elem>));
            } else {
                decls.push(quote!(#i: &impl #p::runtime::OrderedBuffer<#elem>));
            }
            prepare.push(quote! {
                let #ptr = #p::runtime::OrderedBuffer::<#elem>::__chevron_ptr(#i, &*#graph)?;
            });
            pointers.push(quote!(&#ptr as *const _ as *mut #p::c_void));
        } else {
            decls.push(quote!(#i: #ty));
            let (slot, pointer) = update_slot(k, q, &stream);
            prepare.push(slot);
            pointers.push(pointer);
        }
    }
    let n = Literal::usize_unsuffixed(params.len());
    let doc = format!(
        " `update` with ordered buffers: sets the arguments of `{kernel}`'s node `{node}` in \
         `{graph}`, each buffer given as an `&Ordered` from `{graph}.ordered(&mut buffer)` (a \
         buffer the kernel only reads may also be an `&OrderedRead` from \
         `{graph}.ordered_read(&buffer)`), ordered after its earlier uses on other streams once, \
         when it was made, for any number of updates: each update copies its pointer instead of \
         waiting for its events again. The same ordering as `update`. Allocates nothing.\n\n \
         # Safety\n As for `update`.\n\n # Errors\n As for `update`, and `Error::Graph` for an \
         ordered buffer made by another graph."
    );
    quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments, dead_code)]
        #[inline]
        pub unsafe fn update_ordered(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#decls,)*
        ) -> #p::Result<(), #p::Error> {
            let #func = Self::__chevron_kernel().get(#graph.context())?;
            #(#prepare)*
            let mut #args: [*mut #p::c_void; #n] = [#(#pointers),*];
            // SAFETY: the parameters match the PTX entry, as for `launch`; the rest is the
            // caller's promise.
            unsafe { #graph.__set_params(#node, #func, #p::Some(#name), &mut #args) }
        }
    }
}

/// `T` of a buffer parameter's type (`&CudaSlice<T>`, `&mut CudaViewMut<'_, T>`): the first
/// type argument of the referenced path; `None` for a type without one (an alias).
fn buffer_elem(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Reference(r) = ty else {
        return None;
    };
    let mut elem = &*r.elem;
    loop {
        elem = match elem {
            syn::Type::Group(g) => &g.elem,
            syn::Type::Paren(p) => &p.elem,
            _ => break,
        };
    }
    let syn::Type::Path(p) = elem else {
        return None;
    };
    let syn::PathArguments::AngleBracketed(args) = &p.path.segments.last()?.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// `update_scalars`, for kernels with buffer parameters: sets the node's scalar and value
/// arguments and keeps its buffers (the captured ones, or the last update's), through
/// `Graph::set_params_keeping`. Buffers stay borrowed by the graph from the capture, so a scalar
/// change needs no second buffer.
fn update_scalars(
    p: &TokenStream,
    kernel: &Ident,
    name: &LitStr,
    params: &[KernelParam],
    (graph, node): (&Ident, &Ident),
) -> TokenStream {
    // Written as references: device buffers (no reference is a kernel parameter otherwise).
    // A buffer behind an alias of a reference type is taken, as a value would be.
    let is_buffer = |q: &KernelParam| q.by_ref;
    if !params.iter().any(is_buffer) {
        return TokenStream::new();
    }
    let func = hygienic("__chevron_func");
    let args = hygienic("__chevron_params");
    let kept = hygienic("__chevron_kept");
    let mut decls = Vec::new();
    let mut pointers = Vec::new();
    let mut keep = Vec::new();
    // The slots borrow the stream (and so the graph) until the update, which takes the graph
    // shared (`__set_params_keeping`): no clone of the stream per update.
    let stream = hygienic("__chevron_stream");
    let mut prepare = vec![quote! {
        let #stream = #graph.order_stream();
    }];
    for (k, q) in params.iter().enumerate() {
        if is_buffer(q) {
            pointers.push(quote!(::core::ptr::null_mut()));
            keep.push(quote!(true));
        } else {
            let (i, ty) = (&q.ident, &q.ty);
            decls.push(quote!(#i: #ty));
            let (slot, pointer) = update_slot(k, q, &stream);
            prepare.push(slot);
            pointers.push(pointer);
            keep.push(quote!(false));
        }
    }
    let n = Literal::usize_unsuffixed(params.len());
    let buffers: Vec<String> = params
        .iter()
        .filter(|q| is_buffer(q))
        .map(|q| format!("`{}`", q.ident))
        .collect();
    let doc = format!(
        " Sets the scalar and value arguments of `{kernel}`'s node `{node}` in `{graph}` for \
         the following replays and keeps its buffers ({}) as they are: the captured ones, or \
         the last `update`'s. Otherwise as `update`. Allocates nothing.\n\n # Safety\n As \
         for `update`: the captured grid and these values must keep every access of the \
         kernel inside its buffers.\n\n # Errors\n As for `update`.",
        buffers.join(", ")
    );
    quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments, dead_code)]
        #[inline]
        pub unsafe fn update_scalars(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#decls,)*
        ) -> #p::Result<(), #p::Error> {
            let #func = Self::__chevron_kernel().get(#graph.context())?;
            #(#prepare)*
            let mut #args: [*mut #p::c_void; #n] = [#(#pointers),*];
            let mut #kept = [0u64; #n];
            // SAFETY: the parameters match the PTX entry, as for `launch`, and the kept ones are
            // device pointers; the rest is the caller's promise.
            unsafe {
                #graph.__set_params_keeping(
                    #node,
                    #func,
                    #p::Some(#name),
                    &mut #args,
                    &[#(#keep),*],
                    &mut #kept,
                )
            }
        }
    }
}

/// An identifier of the expansion's own, invisible to the user's names and immune to them.
fn hygienic(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// `stream` and `config` for the generated `launch`'s first parameters (hygienic, so any name
/// works); renamed `__chevron_stream` … only so that the documentation does not show two
/// parameters of one name.
fn internal_names<'a>(params: impl Iterator<Item = &'a Ident> + Clone) -> (Ident, Ident) {
    let pick = |want: &str| {
        let taken = |name: &str| params.clone().any(|i| i == name);
        let mut name = want.to_string();
        let mut k = 0u32;
        while taken(&name) {
            name = if k == 0 {
                format!("__chevron_{want}")
            } else {
                format!("__chevron_{want}_{k}")
            };
            k += 1;
        }
        hygienic(&name)
    };
    (pick("stream"), pick("config"))
}

fn launch_doc(name: &str, stream: &Ident, config: &Ident) -> Vec<String> {
    let text = format!(
        "Launches `{name}` on `{stream}` with `{config}` (grid, block, shared memory and \
         attributes).\n\
         \n\
         The first launch in a CUDA context loads the kernel's module; later ones only read a \
         cached handle. Device buffers go through cudarc's `DevicePtr`/`DevicePtrMut`: this \
         launch waits for earlier writes to them on other streams, and later work on other \
         streams waits for it.\n\
         \n\
         # Safety\n\
         Nothing checks what the kernel does with its arguments: the grid in `{config}` and the \
         values passed must keep every access of the kernel inside its buffers.\n\
         \n\
         # Errors\n\
         Loading the module or finding the function (`Error::Driver`; for CUDA C also \
         `Error::NoNvrtc`, `Error::Compile`, `Error::Signature`), an invalid configuration \
         (`Error::InvalidConfig`) or a failed launch (`Error::Driver` and the specific \
         variants for cooperative and cluster launches)."
    );
    text.lines().map(|l| format!(" {l}")).collect()
}

/// The locals holding parameter `k` and its slot.
fn slot_names(k: usize) -> (Ident, Ident) {
    (
        hygienic(&format!("__chevron_arg_{k}")),
        hygienic(&format!("__chevron_slot_{k}")),
    )
}

/// The first and last spans of `ty`'s tokens: an expression spanned from one to the other is
/// reported over the whole type (on stable, `Spanned::span` gives the first token's only).
fn type_spans(ty: &Type) -> (Span, Span) {
    let tokens: Vec<TokenTree> = ty.to_token_stream().into_iter().collect();
    let first = tokens.first().map_or_else(Span::call_site, TokenTree::span);
    let last = match tokens.last() {
        Some(TokenTree::Group(g)) => g.span_close(),
        Some(t) => t.span(),
        None => first,
    };
    (first, last)
}

/// `<chevron>::__private::host_data::<&[f32], f32, _>()`: the parameter's `Param` (its generic
/// form and how it is passed), through the constructor whose bound words the error for a type
/// that is no kernel parameter. Every use of a parameter is this same call with the same spans,
/// so that rustc reports that error once, at the parameter's type.
fn param_expr(q: &KernelParam) -> TokenStream {
    let ty = &q.ty;
    let (span, _) = type_spans(ty);
    let p = crate::krate::private_at(span);
    let (ctor, hint) = match &q.wording {
        Wording::Any => ("param", None),
        Wording::Value => ("value", None),
        Wording::HostData { elem, write } => (
            if *write { "host_data_mut" } else { "host_data" },
            Some(elem),
        ),
        Wording::HostRef { referent, write } => {
            (if *write { "host_mut" } else { "host_ref" }, Some(referent))
        }
        Wording::ReadOnlyView { elem } => ("read_only_view", Some(elem)),
        Wording::BufferByValue => ("buffer_by_value", None),
        Wording::RawPointer => ("raw_pointer", None),
    };
    let ctor = Ident::new(ctor, span);
    let hint = hint.map(|h| quote_spanned!(span=> #h,));
    quote_spanned!(span=> #p::#ctor::<#ty, #hint _>())
}

/// The parameter's form, the exact one for numbers and `bool` (see the runtime's `Of`).
fn form_expr(q: &KernelParam) -> TokenStream {
    let ty = &q.ty;
    let (span, _) = type_spans(ty);
    let p = crate::krate::private_at(span);
    let param = param_expr(q);
    quote_spanned! {span=> {
        #[allow(unused_imports)]
        use #p::NotScalar as _;
        #p::form(
            #p::Of::<#ty>::SCALAR,
            #p::Of::<#ty>::CLASS,
            #p::Of::<#ty>::ELEM,
            #param.form,
        )
    }}
}

/// The compile-time check of one parameter, with `attrs` (the declaration's `#[cfg]` and lint
/// attributes): its type must be a kernel parameter type (a bound, whose error points at the
/// type), and, against a PTX file, fit the PTX parameter in its place (a const panic over the
/// type, in rustc's voice: "`a: Scale` is a 32-bit float, but the kernel takes a 32-bit
/// integer here (…); declare it as `u32` or `i32`").
pub fn param_check(q: &KernelParam, attrs: &[&Attribute]) -> TokenStream {
    let ty = &q.ty;
    let (first, last) = type_spans(ty);
    let p = crate::krate::private_at(first);
    if q.ptx.is_empty() {
        let param = param_expr(q);
        return quote_spanned! {first=>
            #(#attrs)*
            const _: () = {
                let _ = #param;
            };
        };
    }
    // One assertion per distinct PTX parameter (the variants of `ptx = [...]` may differ).
    q.ptx
        .iter()
        .map(|ptx| {
            let form = form_expr(q);
            let variant = Ident::new(&format!("{:?}", ptx.ty), first);
            let some = |n: Option<u32>| match n {
                Some(n) => quote_spanned!(first=> #p::Some(#n)),
                None => quote_spanned!(first=> #p::None),
            };
            let words = &ptx.words;
            let (array_len, align) = (some(ptx.array_len), some(words.facts.ptx_align));
            let cpp = cpp_tokens(&p, words.facts.cpp);
            let (written, read_only) = (words.facts.written, q.read_only);
            let prefix = format!("`{}: {}` is ", q.ident, q.ty_text);
            let (suffix, layout, cpp_suffix) = (&words.ptx, &words.layout, &words.cpp);
            let (not_const, written_suffix) = (&words.not_const, &words.written);
            let message = Ident::new("__CHEVRON_MISMATCH", Span::mixed_site());
            // `panic!` from the parameter's name to its type's last token: the error covers the
            // whole parameter, `a: Scale`.
            let panic = quote_spanned!(q.ident.span()=> #p::panic!);
            let panic_args = quote_spanned!(last=> ("{}", #message.as_str()));
            quote_spanned! {first=>
                #(#attrs)*
                const _: () = {
                    const #message: #p::Message = #p::check(
                        #form,
                        #p::PtxType::#variant,
                        #array_len,
                        #p::Facts {
                            ptx_align: #align,
                            cpp: #cpp,
                            written: #written,
                            read_only: #read_only,
                        },
                        &#p::Texts {
                            prefix: #prefix,
                            ptx: #suffix,
                            layout: #layout,
                            cpp: #cpp_suffix,
                            not_const: #not_const,
                            written: #written_suffix,
                        },
                    );
                    if !#message.is_empty() {
                        #panic #panic_args
                    }
                };
            }
        })
        .collect()
}

/// A `CppParam` as the expression that builds it.
fn cpp_tokens(p: &TokenStream, cpp: CppParam) -> TokenStream {
    let num = |n: Num| match n {
        Num::Bool => quote!(#p::Num::Bool),
        Num::Char => quote!(#p::Num::Char),
        Num::Int { bits, signed } => quote!(#p::Num::Int { bits: #bits, signed: #signed }),
        Num::Float(bits) => quote!(#p::Num::Float(#bits)),
        Num::F16 => quote!(#p::Num::F16),
        Num::BF16 => quote!(#p::Num::BF16),
    };
    let class = |c: Class| match c {
        Class::Unknown => quote!(#p::Class::Unknown),
        Class::Void => quote!(#p::Class::Void),
        Class::Num(n) => {
            let n = num(n);
            quote!(#p::Class::Num(#n))
        }
        Class::Vector(n, lanes) => {
            let n = num(n);
            quote!(#p::Class::Vector(#n, #lanes))
        }
    };
    match cpp {
        CppParam::Unknown => quote!(#p::CppParam::Unknown),
        CppParam::Pointer { pointee, is_const } => {
            let pointee = class(pointee);
            quote!(#p::CppParam::Pointer { pointee: #pointee, is_const: #is_const })
        }
        CppParam::Value(c) => {
            let c = class(c);
            quote!(#p::CppParam::Value(#c))
        }
    }
}

/// One `ParamSig` of the run-time signature check (`cuda = "…"`).
fn signature_entry(q: &KernelParam, p: &TokenStream) -> TokenStream {
    let name = q.ident.to_string();
    let ty_text = &q.ty_text;
    let form = form_expr(q);
    let read_only = q.read_only;
    quote!(#p::ParamSig::new(#name, #ty_text, #form, #read_only))
}

/// `update` and `update_scalars` of a rejected declaration, so that graph code calling them shows
/// only the declaration's errors. Reference parameters count as buffers.
fn stub_updates(p: &TokenStream, typed: &[syn::PatType]) -> TokenStream {
    let (graph, node) = (hygienic("__chevron_graph"), hygienic("__chevron_node"));
    let scalars = typed
        .iter()
        .filter(|t| !matches!(&*t.ty, syn::Type::Reference(_)));
    // Buffers as anything: the ordered types cannot be named from a rejected declaration.
    let ordered = typed.iter().map(|t| match &*t.ty {
        syn::Type::Reference(_) => quote!(_: impl ::core::marker::Sized),
        ty => quote!(_: #ty),
    });
    let doc = " Not generated: `#[kernel]` reported an error for this declaration.";
    quote! {
        #[doc = #doc]
        #[allow(unused_variables, clippy::too_many_arguments, dead_code)]
        pub unsafe fn update(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#typed,)*
        ) -> #p::Result<(), #p::Error> {
            loop {}
        }

        #[doc = #doc]
        #[allow(unused_variables, clippy::too_many_arguments, dead_code)]
        pub unsafe fn update_scalars(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#scalars,)*
        ) -> #p::Result<(), #p::Error> {
            loop {}
        }

        #[doc = #doc]
        #[allow(unused_variables, clippy::too_many_arguments, dead_code)]
        pub unsafe fn update_ordered(
            #graph: &mut #p::runtime::Graph<'_>,
            #node: &#p::runtime::GraphNode,
            #(#ordered,)*
        ) -> #p::Result<(), #p::Error> {
            loop {}
        }
    }
}

/// The checks of a rejected declaration's parameters (those that could be read), so that its
/// type errors show with the macro's: a type that is no kernel parameter, and, where the PTX
/// entry was read, a type that does not fit it. None for a generic declaration, whose
/// parameters name what only its generics declare.
pub fn stub_checks(item: &KernelItem, params: &[KernelParam]) -> TokenStream {
    let generics = &item.sig.generics;
    if !generics.params.is_empty() || generics.where_clause.is_some() {
        return TokenStream::new();
    }
    let scope = ItemAttrs::split(
        item.attrs
            .iter()
            .filter(|a| !super::check::is_function_only(a)),
    );
    params
        .iter()
        .map(|q| param_check(q, &scope.shared))
        .collect()
}

/// What a rejected declaration expands to: the same names with the parameters as written, so
/// call sites type-check and only the real errors show.
pub fn expand_stub(item: &KernelItem) -> TokenStream {
    let p = crate::krate::private();
    let KernelItem {
        attrs, vis, sig, ..
    } = item;
    // Reported at the declaration; on the type rustc would add its own complaint.
    let scope = ItemAttrs::split(attrs.iter().filter(|a| !super::check::is_function_only(a)));
    let impl_attrs = &scope.shared;
    let ident = &sig.ident;
    let typed = super::ast::typed_inputs(sig);
    let names = typed.iter().filter_map(|t| match &*t.pat {
        syn::Pat::Ident(i) => Some(&i.ident),
        _ => None,
    });
    let (stream, config) = internal_names(names.collect::<Vec<_>>().into_iter());
    let (impl_generics, _, where_clause) = sig.generics.split_for_impl();
    let stub_info = info_items(None, false, CooperativeUse::ByPtx);
    let stub_launcher = if sig.generics.params.is_empty() {
        launcher(&p, ident, quote!(#(#typed,)*), quote!(loop {}))
    } else {
        TokenStream::new()
    };
    let stub_updates = if sig.generics.params.is_empty() {
        stub_updates(&p, &typed)
    } else {
        TokenStream::new()
    };
    let ty = kernel_type(&p, &scope, vis, ident);
    let occupancy = expand_occupancy(&p, ident, impl_attrs, true);
    let typed_kernel = typed_impl(&p, ident, impl_attrs);
    quote! {
        #ty
        #occupancy
        #typed_kernel

        #(#impl_attrs)*
        #[allow(deprecated)]
        impl #ident<'_> {
            #stub_info

            #stub_updates

            /// Not generated: `#[kernel]` reported an error for this declaration.
            #[allow(unused_variables, clippy::too_many_arguments, dead_code)]
            pub unsafe fn launch #impl_generics (
                #stream: &#p::CudaStream,
                #config: &#p::LaunchConfig<'_>,
                #(#typed,)*
            ) -> #p::Result<(), #p::Error> #where_clause {
                loop {}
            }

            #stub_launcher

            /// Not generated: `#[kernel]` reported an error for this declaration.
            #[allow(unused_variables, dead_code)]
            pub fn function(
                ctx: &#p::Arc<#p::CudaContext>,
            ) -> #p::Result<#p::CudaFunction, #p::Error> {
                loop {}
            }
        }
    }
}
