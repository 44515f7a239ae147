"""Autograd code from the `autograd:` entries of native_functions.yaml: one backward node per
differentiable functional op (its saved values and its formulas), and the Autograd-key
kernels that record those nodes, bump versions of written tensors and refuse out= calls
on inputs that require grad.

An entry's `autograd:` is either a map from inputs to formulas (C++ expressions in ember
ops; in scope: `grad` / `grads[i]`, `result` or the named returns, the inputs,
`<input>_sizes`, `<input>_scalar_type`, and `grad_input_mask` for a formula of several
inputs "a, b"), with an optional `output_differentiability: [True, False]`; or the marker
`not_implemented` (recorded; backward raises) or `non_differentiable`. In-place forms use
their functional form's entry; out= forms get none. CompositeImplicitAutograd entries
take no entry: they are differentiated through the ops they call.
"""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

import cpp
from model import AUTOGRAD_MARKER_KEY, Argument, NativeFunction, Schema

SHARDS = 4


class AutogradError(Exception):
    pass


@dataclass(frozen=True)
class Derivative:
    inputs: tuple[str, ...]
    formula: str


@dataclass(frozen=True)
class Info:
    """The autograd entry that serves an op (its own, or its functional form's)."""
    source: NativeFunction
    marker: str | None
    derivatives: tuple[Derivative, ...]
    output_differentiability: tuple[bool, ...] | None
    node: str = ""  # the backward node's class name

    @property
    def differentiable(self) -> bool:
        return self.marker != "non_differentiable"


_IDENT = re.compile(r"(?<![\w.:>])([A-Za-z_]\w*)")


def identifiers(formula: str) -> set[str]:
    """Names a formula uses as variables (not members after `.`, `->` or `::`)."""
    return set(_IDENT.findall(re.sub(r'"[^"]*"', "", formula)))


def is_composite_implicit(f: NativeFunction) -> bool:
    return "CompositeImplicitAutograd" in f.dispatch_keys


def has_tensor_input(f: NativeFunction) -> bool:
    return any(a.type.is_tensor for a in f.schema.arguments)


def is_view_op(f: NativeFunction) -> bool:
    s = f.schema
    return (not s.is_inplace and not s.is_out and len(s.returns) == 1 and s.returns[0].type.is_tensor
            and s.returns[0].type.alias is not None and not s.returns[0].type.is_mutable)


def parse_info(f: NativeFunction) -> Info | None:
    if not f.autograd:
        return None
    entries = dict(f.autograd)
    if AUTOGRAD_MARKER_KEY in entries:
        return Info(f, str(entries[AUTOGRAD_MARKER_KEY]), (), None)
    names = {a.name: a for a in f.schema.arguments}
    derivs = []
    out_diff = None
    for key, formula in f.autograd:
        if key == "output_differentiability":
            if not isinstance(formula, list) or len(formula) != len(f.schema.returns):
                raise AutogradError(f"{f.loc}: output_differentiability needs one True/False per "
                                    f"return ({len(f.schema.returns)})")
            out_diff = tuple(bool(x) for x in formula)
            continue
        inputs = tuple(x.strip() for x in key.split(","))
        for name in inputs:
            a = names.get(name)
            if a is None:
                raise AutogradError(f"{f.loc}: autograd formula for '{name}', which is not an "
                                    f"argument of {f.name}")
            if not a.type.is_tensor or (a.type.is_list and a.type.elem_optional):
                raise AutogradError(f"{f.loc}: autograd formula for '{name}', which is not a "
                                    f"Tensor, Tensor? or Tensor[] argument")
            if a.type.is_list and len(f.autograd) - (out_diff is not None) != 1:
                raise AutogradError(f"{f.loc}: a Tensor[] input ('{name}') must be the only "
                                    f"input with a formula (its formula returns one gradient "
                                    f"per element)")
        derivs.append(Derivative(inputs, str(formula).strip()))
    return Info(f, None, tuple(derivs), out_diff)


def camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_") if p)


def return_names(s: Schema) -> list[str]:
    if len(s.returns) == 1:
        return ["result"]
    return [r.name or f"result{i}" for i, r in enumerate(s.returns)]


# ---- saved values -----------------------------------------------------------------------

def member_type(t) -> tuple[str, str]:
    """(member type, expression turning member `m` into the kernel's parameter type)."""
    if t.is_list:
        if t.base in ("int", "SymInt"):
            if t.optional:
                return ("std::optional<std::vector<int64_t>>",
                        "{m} ? std::optional<IntArrayRef>(*{m}) : std::nullopt")
            return "std::vector<int64_t>", "IntArrayRef({m})"
        if t.base == "float":
            return "std::vector<double>", "ArrayRef<double>({m})"
        raise AutogradError(f"a formula cannot use a {t} argument")
    if t.base == "str":
        if t.optional:
            return ("std::optional<std::string>",
                    "{m} ? std::optional<std::string_view>(*{m}) : std::nullopt")
        return "std::string", "std::string_view({m})"
    if t.base == "Generator":
        raise AutogradError("a formula cannot use a Generator")
    return cpp.arg_type(t).replace("const ", "").replace("&", ""), "{m}"


@dataclass
class Saved:
    decls: list[str]
    save_before: list[str]  # statements in the kernel, before the call
    save_after: list[str]  # after the call (outputs)
    unpack: list[str]  # statements at the top of apply
    release: list[str]
    names: list[str] = field(default_factory=list)  # single saved tensors, for saved_variables()


def saved_values(info: Info, f: NativeFunction, inplace: bool) -> Saved:
    s = info.source.schema
    used: set[str] = set()
    for d in info.derivatives:
        used |= identifiers(d.formula)
    sv = Saved([], [], [], [], [])
    args = {a.name: a for a in s.arguments}
    for a in s.arguments:
        if a.name in used:
            if a.type.is_tensor:
                if a.type.is_list:
                    sv.decls.append(f"std::vector<SavedVariable> {a.name}_;")
                    sv.save_before.append(f"for (const Tensor& t : {a.name}) "
                                          f"grad_fn->{a.name}_.emplace_back(t, false);")
                    sv.unpack.append(f"std::vector<Tensor> {a.name}_list;\n"
                                     f"  for (SavedVariable& v : {a.name}_) {a.name}_list.push_back(v.unpack());\n"
                                     f"  const TensorList {a.name}({a.name}_list);")
                    sv.release.append(f"for (SavedVariable& v : {a.name}_) v.reset_data();")
                    continue
                sv.decls.append(f"SavedVariable {a.name}_;")
                if inplace and a.name == "self":
                    # The op overwrites self: keep its value from before the call.
                    sv.save_before.append(f"grad_fn->{a.name}_ = SavedVariable(self.clone(), false);")
                else:
                    sv.save_before.append(f"grad_fn->{a.name}_ = SavedVariable({a.name}, false);")
                if a.type.optional:
                    sv.unpack.append(f"const std::optional<Tensor> {a.name} = "
                                     f"optional_of({a.name}_.unpack());")
                else:
                    sv.unpack.append(f"const Tensor {a.name} = {a.name}_.unpack();")
                sv.release.append(f"{a.name}_.reset_data();")
                sv.names.append(a.name)
            else:
                mtype, conv = member_type(a.type)
                sv.decls.append(f"{mtype} {a.name}_;")
                value = a.name
                if a.type.is_list and a.type.optional:
                    value = f"{a.name} ? std::optional<std::vector<int64_t>>({a.name}->vec()) : std::nullopt"
                elif a.type.is_list:
                    value = f"{a.name}.vec()"
                elif a.type.base == "str" and a.type.optional:
                    value = f"{a.name} ? std::optional<std::string>(*{a.name}) : std::nullopt"
                elif a.type.base == "str":
                    value = f"std::string({a.name})"
                sv.save_before.append(f"grad_fn->{a.name}_ = {value};")
                sv.unpack.append(f"const auto {a.name} = {conv.format(m=a.name + '_')};")
        for suffix, expr, mtype in (("_sizes", "{}.sizes().vec()", "std::vector<int64_t>"),
                                    ("_scalar_type", "{}.scalar_type()", "ScalarType")):
            if a.name + suffix in used and a.type.is_tensor and a.type.is_list:
                mtype = f"std::vector<{mtype}>"
                sv.decls.append(f"{mtype} {a.name}{suffix}_;")
                sv.save_before.append(f"for (const Tensor& t : {a.name}) "
                                      f"grad_fn->{a.name}{suffix}_.push_back({expr.format('t')});")
                sv.unpack.append(f"const auto& {a.name}{suffix} = {a.name}{suffix}_;")
            elif a.name + suffix in used and a.type.is_tensor and not a.type.optional:
                sv.decls.append(f"{mtype} {a.name}{suffix}_;")
                src = a.name
                sv.save_before.append(f"grad_fn->{a.name}{suffix}_ = {expr.format(src)};")
                conv = "IntArrayRef({m})" if suffix == "_sizes" else "{m}"
                sv.unpack.append(f"const auto {a.name}{suffix} = {conv.format(m=a.name + suffix + '_')};")
    for i, name in enumerate(return_names(s)):
        if name in used:
            if name in args:
                raise AutogradError(f"{info.source.loc}: return '{name}' shadows an argument")
            sv.decls.append(f"SavedVariable {name}_;")
            value = "self" if inplace else ("out" if len(s.returns) == 1 else f"std::get<{i}>(out)")
            sv.save_after.append(f"grad_fn->{name}_ = SavedVariable({value}, true);")
            sv.unpack.append(f"const Tensor {name} = {name}_.unpack(shared_from_this());")
            sv.release.append(f"{name}_.reset_data();")
            sv.names.append(name)
    return sv


# ---- nodes --------------------------------------------------------------------------------

def edge_inputs(info: Info) -> list[Argument]:
    """The forward inputs that get a gradient, in schema order: the node's outputs."""
    s = info.source.schema
    if info.marker == "not_implemented":
        return [a for a in s.arguments if a.type.is_tensor and not a.type.is_list]
    named = {n for d in info.derivatives for n in d.inputs}
    return [a for a in s.arguments if a.name in named]


def node_class(info: Info, sv: Saved) -> str:
    name = info.node
    if info.marker == "not_implemented":
        return ""
    edges = [a.name for a in edge_inputs(info)]
    index = {n: i for i, n in enumerate(edges)}
    body = []
    list_input = len(edges) == 1 and edge_inputs(info)[0].type.is_list
    for d in info.derivatives:
        if list_input:
            # One gradient per element of the Tensor[] input (as many as the node's edges).
            body.append(f"  if (any_grad_defined) {{\n    grad_inputs = {d.formula};\n"
                        f"    grad_inputs.resize(num_outputs());\n  }}\n")
            continue
        idx = [index[n] for n in d.inputs]
        cond = " || ".join(f"should_compute_output({i})" for i in idx)
        if len(d.inputs) == 1:
            body.append(f"  if ({cond}) {{\n"
                        f"    grad_inputs[{idx[0]}] = any_grad_defined ? Tensor({d.formula}) : Tensor();\n"
                        f"  }}\n")
        else:
            mask = ", ".join(f"should_compute_output({i})" for i in idx)
            targets = ", ".join(f"grad_inputs[{i}]" for i in idx)
            body.append(f"  if (({cond}) && any_grad_defined) {{\n"
                        f"    const std::array<bool, {len(idx)}> grad_input_mask{{{mask}}};\n"
                        f"    std::tie({targets}) = {d.formula};\n"
                        f"  }}\n")
    used = set().union(*(identifiers(d.formula) for d in info.derivatives)) if info.derivatives else set()
    grad_decl = "  const Tensor& grad = grads[0];\n" if "grad" in used else ""
    decls = "".join(f"  {d}\n" for d in sv.decls)
    release = "".join(f"    {r}\n" for r in sv.release)
    unpack = "".join(f"  {u}\n" for u in sv.unpack)
    listed = ", ".join(f'{{"{n}", &{n}_}}' for n in sv.names)
    saved = (f"  std::vector<std::pair<const char*, SavedVariable*>> saved_variables() override {{\n"
             f"    return {{{listed}}};\n  }}\n") if sv.names else ""
    return (f"struct {name} final : Node {{\n"
            f"  std::string name() const override {{ return \"{name}\"; }}\n"
            f"  const char* forward_op() const override {{ return \"aten::{info.source.name}\"; }}\n"
            f"  variable_list apply(variable_list&& grads) override;\n"
            f"  void release_variables() override {{\n{release}  }}\n{saved}{decls}}};\n\n"
            f"variable_list {name}::apply(variable_list&& grads) {{\n"
            f"  grads.resize(std::max<size_t>(grads.size(), 1));\n"
            f"  variable_list grad_inputs({'num_outputs()' if list_input else len(edges)});\n"
            f"  const bool any_grad_defined = any_defined(grads);\n"
            f"{grad_decl}{unpack}{''.join(body)}  return grad_inputs;\n}}\n")


# ---- kernels ------------------------------------------------------------------------------

def kernel_name(f: NativeFunction) -> str:
    return f"autograd_{cpp.struct_name(f)}"


def redispatch_call(f: NativeFunction) -> str:
    names = ", ".join(a.name for a in f.schema.arguments)
    return (f"ops::{cpp.struct_name(f)}::redispatch(ks.below(DispatchKey::AutogradOther)"
            f"{', ' if names else ''}{names})")


def tensor_ptr(a: Argument) -> str:
    return f"optional_ptr({a.name})" if a.type.optional else f"&{a.name}"


def differentiable_inputs(info: Info, f: NativeFunction) -> list[Argument]:
    names = {a.name for a in edge_inputs(info)}
    return [a for a in f.schema.arguments if a.name in names]


def kernel(f: NativeFunction, info: Info | None) -> str:
    s = f.schema
    ret, ps = cpp.return_type(s, kernel=True), cpp.params(s.arguments, kernel=True)
    head = f"{ret} {kernel_name(f)}({', '.join(['DispatchKeySet ks'] + ps)}) {{\n"
    call = redispatch_call(f)
    if s.is_out:
        lines = []
        if info is None or info.differentiable:
            tensors = [a for a in s.arguments if a.type.is_tensor and not a.type.is_list]
            req = " || ".join(f"requires_grad({a.name})" for a in tensors) or "false"
            lines.append(f"  EMBER_CHECK(!GradMode::is_enabled() || !({req}), \"{s.name}(): functions "
                         f"with out=... arguments don't support automatic differentiation, but one "
                         f"of the arguments requires grad.\");\n")
        if len(s.returns) == 1:
            lines.append(f"  {{\n    AutoDispatchBelowAutograd guard;\n    {call};\n  }}\n")
            lines += [f"  {a.name}.impl()->bump_version();\n" for a in s.out_arguments]
            lines.append(f"  return {s.out_arguments[0].name};\n")
        else:
            lines.append(f"  auto result = [&] {{\n    AutoDispatchBelowAutograd guard;\n"
                         f"    return {call};\n  }}();\n")
            lines += [f"  {a.name}.impl()->bump_version();\n" for a in s.out_arguments]
            lines.append("  return result;\n")
        return head + "".join(lines) + "}\n"
    inplace = s.is_inplace
    if info is None or not info.differentiable:
        # Only in-place forms get here: the call, then the version bump.
        return (head + f"  {{\n    AutoDispatchBelowAutograd guard;\n    {call};\n  }}\n"
                "  self.impl()->bump_version();\n  return self;\n}\n")
    diff = differentiable_inputs(info, f)
    req = " || ".join(f"requires_grad({a.name})" for a in diff) or "false"
    lines = [f"  const bool rg = GradMode::is_enabled() && ({req});\n"]
    if inplace:
        lines.append(f"  if (rg) check_inplace(self, \"{s.name}\");\n")
    edges = ", ".join(tensor_ptr(a) for a in diff)
    if info.marker == "not_implemented":
        node_t = "NotImplementedNode"
        make = f"std::make_shared<NotImplementedNode>(\"{info.source.name}\")"
        sv = Saved([], [], [], [], [])
    else:
        node_t = info.node
        make = f"make_pooled<{node_t}>()"
        sv = saved_values(info, f, inplace)
    if len(diff) == 1 and diff[0].type.is_list:
        edges = diff[0].name  # collect_next_edges(TensorList)
    else:
        edges = "{" + edges + "}"
    lines.append(f"  std::shared_ptr<{node_t}> grad_fn;\n  if (rg) {{\n    grad_fn = {make};\n"
                 f"    grad_fn->collect_next_edges({edges});\n")
    lines += [f"    {x}\n" for x in sv.save_before]
    lines.append("  }\n")
    if inplace:
        lines.append(f"  {{\n    AutoDispatchBelowAutograd guard;\n    {call};\n  }}\n"
                     "  self.impl()->bump_version();\n"
                     "  if (grad_fn) {\n    rebase_history(self, grad_fn);\n")
        lines += [f"    {x}\n" for x in sv.save_after]
        lines.append("  }\n  return self;\n")
        return head + "".join(lines) + "}\n"
    lines.append(f"  auto out = [&] {{\n    AutoDispatchBelowAutograd guard;\n    return {call};\n  }}();\n")
    n = len(s.returns)
    outs = ["out"] if n == 1 else [f"std::get<{i}>(out)" for i in range(n)]
    if is_view_op(f):
        lines.append("  make_view(out, self);\n")
    diff_out = info.output_differentiability or (True,) * n
    lines.append("  if (grad_fn) {\n")
    for o, d, r in zip(outs, diff_out, s.returns):
        if d and r.type.is_tensor and info.marker == "not_implemented" and n > 1:
            # An op without a derivative: its integer results (pivots, info) get no history.
            lines.append(f"    if (!{o}.defined() || is_floating_point({o}.dtype()) || is_complex({o}.dtype())) "
                         f"set_history({o}, grad_fn);\n")
        elif d and r.type.is_tensor:
            lines.append(f"    set_history({o}, grad_fn);\n")
    lines += [f"    {x}\n" for x in sv.save_after]
    lines.append("  }\n  return out;\n")
    return head + "".join(lines) + "}\n"


# ---- the plan -----------------------------------------------------------------------------

@dataclass
class Plan:
    kernels: list[tuple[NativeFunction, Info | None]]  # ops that get an Autograd kernel
    nodes: list[Info]
    not_implemented: list[str]
    non_differentiable: list[str]
    with_formulas: list[str]


def _plain(t) -> str:
    return str(t).replace("(a!)", "").replace("(a)", "")


def functional_of(f: NativeFunction, fs: list[NativeFunction]) -> str:
    """The functional form of an in-place op: the same overload name, else the overload of
    the base name with the same argument types (pow_.Scalar -> pow.Tensor_Scalar)."""
    s = f.schema
    same = s.name[:-1] + (f".{s.overload}" if s.overload else "")
    types = [_plain(a.type) for a in s.arguments]
    for g in fs:
        if g.name == same and [_plain(a.type) for a in g.schema.arguments] == types:
            return same
    for g in fs:
        gs = g.schema
        if gs.name == s.name[:-1] and not gs.is_out and [_plain(a.type) for a in gs.arguments] == types:
            return g.name
    return same


def plan(fs: list[NativeFunction]) -> Plan:
    by_name = {f.name: f for f in fs}
    infos: dict[str, Info] = {}
    counter: dict[str, int] = {}
    p = Plan([], [], [], [], [])
    for f in fs:
        info = parse_info(f)
        s = f.schema
        if info is not None and (is_composite_implicit(f) or not has_tensor_input(f) or s.is_out):
            why = ("CompositeImplicitAutograd ops are differentiated through the ops they call"
                   if is_composite_implicit(f) else
                   "out= forms are not differentiable" if s.is_out else "it has no tensor input")
            raise AutogradError(f"{f.loc}: '{f.name}' takes no autograd entry: {why}")
        if info is None:
            continue
        if s.is_inplace:
            functional = functional_of(f, fs)
            if functional in by_name:
                raise AutogradError(f"{f.loc}: in-place '{f.name}' takes its functional form's "
                                    f"autograd entry; move it to '{functional}'")
        if info.marker is None:
            base = camel(s.name)
            idx = counter.get(base, 0)
            counter[base] = idx + 1
            info = Info(info.source, None, info.derivatives, info.output_differentiability,
                        f"{base}Backward{idx}")
            p.nodes.append(info)
            p.with_formulas.append(f.name)
        elif info.marker == "not_implemented":
            p.not_implemented.append(f.name)
        else:
            p.non_differentiable.append(f.name)
        infos[f.name] = info
    for f in fs:
        s = f.schema
        if is_composite_implicit(f) or not has_tensor_input(f):
            continue
        if s.is_out:
            # The functional forms with the same inputs decide whether out= refuses grads.
            same = [g for g in fs if g.schema.name == s.name and not g.schema.is_out and
                    [str(a.type) for a in g.schema.arguments] ==
                    [str(a.type) for a in s.non_out_arguments]]
            info = next((infos[g.name] for g in same if g.name in infos), None)
            p.kernels.append((f, info))
            continue
        if s.is_inplace:
            functional = functional_of(f, fs)
            info = infos.get(f.name) or infos.get(functional)
            if info is None and functional in by_name and not is_composite_implicit(by_name[functional]):
                raise AutogradError(f"{by_name[functional].loc}: '{functional}' needs an autograd "
                                    f"entry (formulas, not_implemented or non_differentiable)")
            if info is None and functional not in by_name:
                raise AutogradError(f"{f.loc}: in-place '{f.name}' (which has no functional form) "
                                    f"needs an autograd entry")
            if info is not None and info.marker is None:
                src = [a.name for a in info.source.schema.arguments]
                if src != [a.name for a in s.arguments]:
                    raise AutogradError(f"{f.loc}: in-place '{f.name}' and '{functional}' name "
                                        f"their arguments differently")
            p.kernels.append((f, info))
            continue
        info = infos.get(f.name)
        if info is None:
            raise AutogradError(f"{f.loc}: '{f.name}' needs an autograd entry (formulas, "
                                f"not_implemented or non_differentiable)")
        if info.differentiable:
            p.kernels.append((f, info))
    return p


def shard_of(f: NativeFunction) -> int:
    base = f.schema.name.rstrip("_")
    return zlib.crc32(base.encode()) % SHARDS


def files(fs: list[NativeFunction], ns: str, prefix: str) -> list[tuple[str, str]]:
    from gen_register import fn_ref, includes
    p = plan(fs)
    shards = [{"nodes": [], "kernels": [], "impls": []} for _ in range(SHARDS)]
    node_of: dict[str, Info] = {i.source.name: i for i in p.nodes}
    for info in p.nodes:
        sv = saved_values(info, info.source, inplace=False)
        shards[shard_of(info.source)]["nodes"].append(node_class(info, sv))
    for f, info in p.kernels:
        sh = shards[shard_of(f)]
        if info is not None and info.marker is None:
            info = node_of[info.source.name]
        sh["kernels"].append(kernel(f, info))
        ret, ps = cpp.return_type(f.schema, kernel=True), cpp.params(f.schema.arguments, kernel=True)
        sh["impls"].append(f'  m.impl("{f.name}", {fn_ref(kernel_name(f), ret, ["DispatchKeySet ks"] + ps)});')
    out = []
    for i, sh in enumerate(shards):
        body = ("namespace ember::autograd {\nnamespace {\n\n" + "\n".join(sh["nodes"]) + "\n" +
                "\n".join(sh["kernels"]) + "\n}  // namespace\n\n" +
                f"EMBER_LIBRARY_IMPL({ns}, Autograd, m) {{\n" + "\n".join(sh["impls"]) +
                "\n}\n\n}  // namespace ember::autograd\n")
        # Only the op headers the shard's formulas and redispatches use (Note [Per-op headers]).
        text = ('#include <algorithm>\n#include <array>\n#include <tuple>\n\n' +
                includes(prefix, cpp.groups_used(body, fs)) + '#include "aten/autograd/FunctionsManual.h"\n'
                '#include "aten/autograd/Engine.h"\n#include "aten/autograd/SavedVariable.h"\n#include "aten/autograd/Variable.h"\n'
                '#include "c10/dispatch/Library.h"\n#include "c10/util/Exception.h"\n\n' + body)
        out.append((f"AutogradKernels_{i}.cpp", text))
    out.append(("autograd.md", report(p)))
    return out


def report(p: Plan) -> str:
    lines = ["# Autograd coverage", "",
             f"- {len(p.with_formulas)} functional ops with formulas",
             f"- {len(p.non_differentiable)} non-differentiable ops",
             f"- {len(p.not_implemented)} ops marked `autograd: not_implemented`"
             + (": " + ", ".join(f"`{n}`" for n in p.not_implemented) if p.not_implemented else ""),
             f"- {len(p.kernels)} Autograd-key kernels (functional, in-place and out= forms)", ""]
    return "\n".join(lines)


def output_cpps() -> list[str]:
    return [f"AutogradKernels_{i}.cpp" for i in range(SHARDS)]
