#pragma once
/// Saving and loading traced graphs as data: ember.jit.save / ember.jit.load in Python,
/// ember::jit::save / ember::jit::load in C++ (no Python needed to run one).
///
///   ember::jit::TracedProgram p = ember::jit::load("model.ember");
///   std::vector<ember::Tensor> y = p.run({x});
///
/// Note [Graph files]: a graph file is a zip archive in Ember's checkpoint container
/// (frontend/serialize/Zip.h: CRC-32 per record, a header checksum): `graph.txt`, a flat
/// token description (format version, values with their types, inputs, outputs, and per
/// node the op, its full schema as registered at save, its slots, its source line, and a
/// fused node's program), and `tensors.pt`, the graph's constants and the bound inputs as a
/// state dict in the checkpoint format. Loading runs no code: it parses, looks each op up
/// in the dispatcher, checks that its schema is the one recorded, and checks the graph's
/// invariants (Graph::verify); a truncated or corrupted file, an unknown op or a changed
/// schema is a CheckpointError naming the file and what is wrong.

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "aten/tracing/Graph.h"
#include "c10/macros/Export.h"

namespace ember::jit {

/// A graph with the tensors bound to some of its inputs by name (a module's parameters and
/// buffers): what ember.jit.save writes and ember::jit::load returns.
struct EMBER_API TracedProgram {
  Graph graph;
  std::vector<std::pair<std::string, Tensor>> bound;  ///< input name -> tensor

  /// The graph's inputs not bound, in order (what run() takes).
  std::vector<std::string> free_inputs() const;
  /// Runs the graph on the free inputs (in order) and the bound tensors.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) const;
};

/// Writes program to path (whole, then renamed into place) or to out (Note [Graph files]).
EMBER_API void save(const TracedProgram& program, const std::string& path);
EMBER_API void save(const TracedProgram& program, std::ostream& out);
/// Reads a program save() wrote; CheckpointError for anything else.
EMBER_API TracedProgram load(const std::string& path);
EMBER_API TracedProgram load(std::istream& in);

}  // namespace ember::jit
