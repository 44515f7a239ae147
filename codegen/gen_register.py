"""Registration files: schemas, kernel declarations, per-key registrations with the
structured wrappers (functional, in-place and out= forms from one out= kernel plus a
meta function), BackendSelect for factories, and Meta for every structured op.
"""
from __future__ import annotations

from collections import defaultdict

import cpp
from model import Argument, NativeFunction, Schema


class RegisterError(Exception):
    pass


def _cpp_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def kernel_signature(s: Schema) -> tuple[str, list[str]]:
    return cpp.return_type(s, kernel=True), cpp.params(s.arguments, kernel=True)


def structured_kernel_params(s: Schema) -> list[str]:
    return cpp.params(s.non_out_arguments) + [f"const Tensor& {a.name}" for a in s.out_arguments]


def meta_name(s: Schema) -> str:
    return f"{s.name}_meta" if s.overload in ("out", "") else f"{s.name}_{s.overload}_meta"


def meta_return(s: Schema) -> str:
    n = len(s.out_arguments)
    return "TensorMeta" if n == 1 else f"std::array<TensorMeta, {n}>"


def fn_ref(name: str, ret: str, ps: list[str]) -> str:
    """A compile-time kernel reference that also picks one overload of `name`."""
    types = ", ".join(p.rsplit(" ", 1)[0].split(" = ")[0] for p in ps)
    return f"::ember::CompileTimeFunction<static_cast<{ret} (*)({types})>(&{name})>()"


def native_decls(fs: list[NativeFunction]) -> list[str]:
    """The kernel and meta-function declarations of one op group (one ops/<name>.h)."""
    decls: dict[str, None] = {}
    for f in fs:
        s = f.schema
        # The CUDA registrations are compiled into libember_cuda (Note [The CUDA library]):
        # a kernel any CUDA entry names is exported, once, whatever other keys it serves.
        cuda_kernels = {k for key, k in f.dispatch if key == "CUDA"}
        for key, kernel in f.dispatch:
            if f.structured:
                decl = f"void {kernel}({', '.join(structured_kernel_params(s))});"
            else:
                ret, ps = kernel_signature(s)
                if key == "BackendSelect":
                    ps = ["DispatchKeySet keys"] + ps
                decl = f"{ret} {kernel}({', '.join(ps)});"
            decls.setdefault(("EMBER_API " if kernel in cuda_kernels else "") + decl)
        if f.structured:
            params = cpp.params(s.non_out_arguments)
            decl = f"{meta_return(s)} {meta_name(s)}({', '.join(params)})"
            if f.meta:
                # Note [Shared meta helpers] (model.py): the family's helper, called with the name.
                decls.setdefault(f"EMBER_API TensorMeta {f.meta}({', '.join(['const char* op'] + params)});")
                args = ", ".join([_cpp_string(s.name)] + [p.rsplit(" ", 1)[1].split(" = ")[0] for p in params])
                decls.setdefault(f"inline {decl} {{ return {f.meta}({args}); }}")
            else:
                decls.setdefault(f"EMBER_API {decl};")
    return list(decls)


def native_header(name: str, decls: list[str]) -> str:
    """ops/<name>_native.h. Note [Per-op headers] (gen.py): a kernel file includes the
    native headers of the kernels it defines or calls, so an entry's kernel change rebuilds
    only those files."""
    return (f"#pragma once\n// Kernel and meta-function declarations of {name}.\n\n"
            "#include <array>\n#include <complex>\n#include <optional>\n#include <tuple>\n\n"
            '#include "c10/core/Generator.h"\n#include "c10/core/TensorMeta.h"\n'
            '#include "c10/dispatch/Dispatcher.h"\n\nnamespace ember::native {\n\n' +
            "".join(d + "\n" for d in decls) + "\n}  // namespace ember::native\n")


def native_groups(fs: list[NativeFunction]) -> dict[str, list[str]]:
    """Op group (ops/<name>.h's name) -> its declarations, for the groups that have any."""
    by_name: dict[str, list[NativeFunction]] = defaultdict(list)
    for f in fs:
        by_name[f.schema.name].append(f)
    groups = {n: native_decls(g) for n, g in sorted(by_name.items())}
    return {n: d for n, d in groups.items() if d}


def native_functions_h(groups: dict[str, list[str]], prefix: str) -> str:
    return ("#pragma once\n// Every op's kernel and meta-function declarations, for code that needs them\n"
            "// all; Ember's own files include ops/<name>_native.h (Note [Per-op headers], gen.py).\n\n" +
            "".join(f'#include "{prefix}/ops/{n}_native.h"\n' for n in groups))


def includes(prefix: str, names, suffix: str = "") -> str:
    """#include lines of the ops/<name><suffix>.h of each name, sorted."""
    return "".join(f'#include "{prefix}/ops/{n}{suffix}.h"\n' for n in sorted(set(names)))


def register_schemas(fs: list[NativeFunction], ns: str) -> str:
    lines = ['#include "c10/dispatch/Library.h"\n', f"EMBER_LIBRARY({ns}, m) {{"]
    lines += [f"  m.def({_cpp_string(str(f.schema))});  // {f.loc}" for f in fs]
    return "\n".join(lines) + "\n}\n"


CPU_CAPABILITIES = ("cpu_avx2", "cpu_avx512")


class KeyFile:
    def __init__(self, key: str):
        self.key = key
        self.wrappers: list[str] = []
        self.impls: list[str] = []
        # CPU: kernel pointers picked per capability, by (kernel, signature) -> (name, decl).
        self.picked: dict[tuple[str, str], tuple[str, str, str]] = {}
        # The op groups whose ops/<name>_native.h (kernels, metas) and ops/<name>.h
        # (redispatch) the wrappers use.
        self.natives: set[str] = set()
        self.ops: set[str] = set()
        self.sparse_kernels = False  # Note [Sparse on values]: includes SparseTensor.h

    def kernel_call(self, kernel: str, ret: str, ps: list[str]) -> str:
        """What a wrapper calls for `kernel`: the function itself, or on CPU the copy of the
        running capability (Note [CPU capabilities] in aten/native/CpuCapability.h)."""
        if self.key != "CPU":
            return f"native::{kernel}"
        params = ", ".join(p.split(" = ")[0] for p in ps)
        types = ", ".join(p.rsplit(" ", 1)[0].split(" = ")[0] for p in ps)
        found = self.picked.get((kernel, types))
        if found is None:
            name = f"cpu_{kernel}" + (f"_{len(self.picked)}" if any(k == kernel for k, _ in self.picked) else "")
            found = (name, f"{ret} {kernel}({params});", f"{ret} (*)({types})")
            self.picked[(kernel, types)] = found
        return found[0]

    def prologue(self) -> str:
        """Weak declarations of the capability copies and the picked pointers."""
        if not self.picked:
            return ""
        text = ""
        for ns in CPU_CAPABILITIES:
            text += f"namespace ember::native::{ns} {{\n"
            text += "".join(f"[[gnu::weak]] {decl}\n" for _, decl, _ in self.picked.values())
            text += f"}}  // namespace ember::native::{ns}\n\n"
        text += "namespace ember {\nnamespace {\n\n// The copy of each kernel for this process's CPU capability.\n"
        for (kernel, _), (name, _, fptr) in self.picked.items():
            copies = ", ".join(f"&native::{ns}::{kernel}" for ns in CPU_CAPABILITIES)
            text += f"const auto {name} = pick_cpu_kernel<{fptr}>(&native::{kernel}, {copies});\n"
        return text + "\n}  // namespace\n}  // namespace ember\n\n"


def _first_tensor(args: tuple[Argument, ...]) -> Argument | None:
    for a in args:
        if a.type.is_tensor and not a.type.is_list and not a.type.optional:
            return a
    return None


def structured_wrappers(out_fn: NativeFunction, delegates: list[NativeFunction], key: str,
                        kernel: str | None, kf: KeyFile) -> None:
    s = out_fn.schema
    meta = f"native::{meta_name(s)}"
    kf.natives.add(s.name)
    n_out = len(s.out_arguments)
    for f in [out_fn] + delegates:
        fs = f.schema
        ins = fs.non_out_arguments if fs.is_out else fs.arguments
        if len(ins) != len(s.non_out_arguments):
            raise RegisterError(f"{f.loc}: '{f.name}' delegates to '{out_fn.name}' but takes "
                                f"{len(ins)} inputs where the out= overload takes "
                                f"{len(s.non_out_arguments)}")
        in_names = ", ".join(a.name for a in ins)
        wname = f"wrapper_{key}_{cpp.struct_name(f)}"
        ret, ps = kernel_signature(fs)
        body = [f"  auto meta = {meta}({in_names});"]
        metas = ["meta"] if n_out == 1 else [f"meta[{i}]" for i in range(n_out)]
        if fs.is_out:
            outs = [a.name for a in fs.out_arguments]
            body += [f'  prepare_out({m}, {o}, "{f.name}");' for m, o in zip(metas, outs)]
            result = outs[0] if n_out == 1 else f"{ret}({', '.join(outs)})"
        elif fs.is_inplace:
            if n_out != 1:
                raise RegisterError(f"{f.loc}: in-place '{f.name}' needs a single output")
            outs = [ins[0].name]
            body.append(f'  check_inplace(meta, {outs[0]}, "{f.name}");')
            result = outs[0]
        else:
            first = _first_tensor(ins)
            if key == "CUDA":
                # A CPU 0-d operand is a number: the result lives on the CUDA operand's device.
                tensors = ", ".join(f"&{a.name}" for a in ins
                                    if a.type.is_tensor and not a.type.is_list and not a.type.optional)
                device = f"output_device_of({{{tensors}}})"
            else:
                device = "Device(DeviceType::Meta)" if key == "Meta" else (
                    f"{first.name}.device()" if first else "Device(DeviceType::CPU)")
            outs = [f"out{i}" for i in range(n_out)]
            body += [f"  Tensor {o} = make_output({m}, {device});" for m, o in zip(metas, outs)]
            result = outs[0] if n_out == 1 else f"{ret}({', '.join(outs)})"
        if kernel:
            call = kf.kernel_call(kernel, "void", structured_kernel_params(s))
            body.append(f"  {call}({', '.join([a.name for a in ins] + outs)});")
        body.append(f"  return {result};")
        kf.wrappers.append(f"{ret} {wname}({', '.join(ps)}) {{\n" + "\n".join(body) + "\n}\n")
        kf.impls.append(f'  m.impl("{f.name}", {fn_ref(wname, ret, ps)});')


def files(fs: list[NativeFunction], ns: str, prefix: str) -> list[tuple[str, str]]:
    groups = native_groups(fs)
    out = [(f"ops/{n}_native.h", native_header(n, d)) for n, d in groups.items()]
    out += [("NativeFunctions.h", native_functions_h(groups, prefix)),
            ("RegisterSchemas.cpp", register_schemas(fs, ns))]
    keys: dict[str, KeyFile] = {}

    def key_file(k: str) -> KeyFile:
        return keys.setdefault(k, KeyFile(k))

    delegates: dict[str, list[NativeFunction]] = defaultdict(list)
    for f in fs:
        if f.structured_delegate:
            delegates[f.structured_delegate].append(f)
    for f in fs:
        s = f.schema
        if f.sparse is not None:
            # Note [Sparse on values] (model.py): one generic kernel per mode, boxed, for
            # every sparse layout (COO at SparseCPU; CSR and CSC at SparseCsrCPU).
            for key in ("SparseCPU", "SparseCsrCPU"):
                if key in dict(f.dispatch):
                    continue  # a kernel of its own wins
                kf = key_file(key)
                kf.sparse_kernels = True
                kf.impls.append(f'  m.impl("{f.name}", CppFunction::boxed(&native::sparse_on_{f.sparse}));')
        if f.structured:
            dispatch = dict(f.dispatch)
            for key, kernel in f.dispatch:
                structured_wrappers(f, delegates[f.name], key, kernel, key_file(key))
            if "Meta" not in dispatch:
                structured_wrappers(f, delegates[f.name], "Meta", None, key_file("Meta"))
            continue
        for key, kernel in f.dispatch:  # (a structured_delegate's: its layout keys only)
            ret, ps = kernel_signature(s)
            if key == "BackendSelect":
                ps = ["DispatchKeySet keys"] + ps
            kf = key_file(key)
            kf.natives.add(s.name)
            if key == "CPU":
                # Through the picked pointer: a forwarding wrapper.
                wname = f"wrapper_CPU_{cpp.struct_name(f)}"
                names = ", ".join(p.split(" = ")[0].rsplit(" ", 1)[1] for p in ps)
                kf.wrappers.append(f"{ret} {wname}({', '.join(ps)}) {{\n"
                                   f"  return {kf.kernel_call(kernel, ret, ps)}({names});\n}}\n")
                kf.impls.append(f'  m.impl("{f.name}", {fn_ref(wname, ret, ps)});')
            else:
                kf.impls.append(f'  m.impl("{f.name}", {fn_ref("native::" + kernel, ret, ps)});')
        # Factories (no tensor argument, a device argument) pick their backend here.
        has_tensor = any(a.type.is_tensor for a in s.arguments)
        if not has_tensor and any(a.name == "device" for a in s.arguments) and "BackendSelect" not in dict(f.dispatch):
            ret, ps = kernel_signature(s)
            wname = f"wrapper_BackendSelect_{cpp.struct_name(f)}"
            layout = "layout.value_or(Layout::Strided)" if any(a.name == "layout" for a in s.arguments) else "Layout::Strided"
            names = ", ".join(a.name for a in s.arguments)
            kf = key_file("BackendSelect")
            kf.ops.add(s.name)
            kf.wrappers.append(
                f"{ret} {wname}({', '.join(['DispatchKeySet keys'] + ps)}) {{\n"
                f"  const DispatchKey backend = select_backend_key(device.value_or(Device(DeviceType::CPU)), {layout});\n"
                f"  return ops::{cpp.struct_name(f)}::redispatch(keys.below(DispatchKey::BackendSelect).add(backend), {names});\n}}\n")
            kf.impls.append(f'  m.impl("{f.name}", {fn_ref(wname, ret, ["DispatchKeySet keys"] + ps)});')
    for key, kf in sorted(keys.items()):
        text = (includes(prefix, kf.ops) + includes(prefix, kf.natives, "_native") +
                '#include "aten/native/CpuCapability.h"\n' +
                ('#include "aten/native/sparse/SparseTensor.h"\n' if kf.sparse_kernels else "") +
                '#include "aten/native/Structured.h"\n#include "c10/dispatch/Library.h"\n\n' +
                kf.prologue() + "namespace ember {\nnamespace {\n\n" + "\n".join(kf.wrappers) +
                "\n}  // namespace\n\n" + f"EMBER_LIBRARY_IMPL({ns}, {key}, m) {{\n" +
                "\n".join(kf.impls) + "\n}\n\n}  // namespace ember\n")
        out.append((f"Register{key}.cpp", text))
    return out


def output_cpps(fs: list[NativeFunction]) -> list[str]:
    """The .cpp files a run writes (CMake compiles these)."""
    keys = set()
    for f in fs:
        keys.update(f.dispatch_keys)
        if f.structured:
            keys.add("Meta")
        s = f.schema
        if (not f.structured_delegate and not any(a.type.is_tensor for a in s.arguments)
                and any(a.name == "device" for a in s.arguments)):
            keys.add("BackendSelect")
    return ["RegisterSchemas.cpp", "TensorMethods.cpp"] + [f"Register{k}.cpp" for k in sorted(keys)]


def output_headers(fs: list[NativeFunction]) -> list[str]:
    """The kernel-declaration headers a run writes."""
    return ["NativeFunctions.h"] + [f"ops/{n}_native.h" for n in native_groups(fs)]
