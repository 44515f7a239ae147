// torch::save / torch::load as libtorch programs call them: tensors of every dtype, views,
// vectors and module state dicts, round trips through files and streams, checkpoints that
// PyTorch's torch.save wrote (test/cpp/reference/serialize_reference.py) and bad input.
// test/python/test_cpp_serialize.py loads what SerializeForPython writes with torch.load.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <unistd.h>

#include "frontend/serialize/Zip.h"
#include "test/cpp/api/api_test_util.h"

namespace {

namespace fs = std::filesystem;

const std::vector<std::pair<std::string, torch::ScalarType>> kDtypes = {
    {"bool", torch::kBool},         {"uint8", torch::kUInt8},
    {"int8", torch::kInt8},         {"int16", torch::kInt16},
    {"int32", torch::kInt32},       {"int64", torch::kInt64},
    {"float16", torch::kFloat16},   {"bfloat16", torch::kBFloat16},
    {"float32", torch::kFloat32},   {"float64", torch::kFloat64},
    {"complex64", torch::kComplexFloat}, {"complex128", torch::kComplexDouble},
};

// The 2x3 tensor of every dtype case (serialize_reference.py's pattern()).
torch::Tensor pattern(torch::ScalarType dtype) {
  const torch::Tensor i = torch::arange(6, torch::kFloat64).reshape({2, 3});
  if (dtype == torch::kBool) return torch::tensor({{false, true, false}, {true, false, true}});
  if (dtype == torch::kComplexFloat || dtype == torch::kComplexDouble) {
    using C = std::complex<double>;
    return torch::tensor({{C(-1.25, 0), C(-0.75, 0.25), C(-0.25, 0.5)},
                          {C(0.25, 0.75), C(0.75, 1.0), C(1.25, 1.25)}})
        .to(dtype);
  }
  if (dtype == torch::kFloat16 || dtype == torch::kBFloat16 || dtype == torch::kFloat32 ||
      dtype == torch::kFloat64) {
    return ((i - 2.5) * 0.5).to(dtype);
  }
  if (dtype == torch::kUInt8) return (i * 40).to(dtype);
  return (i * 7 - 20).to(dtype);
}

std::string reference(const std::string& name) {
  return std::string(EMBER_BINARY_DIR) + "/test/cpp/reference/serialize/" + name;
}

fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() /
                       ("ember_serialize_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

void expect_same(const torch::Tensor& got, const torch::Tensor& want) {
  ASSERT_TRUE(got.defined());
  EXPECT_EQ(got.dtype(), want.dtype());
  EXPECT_EQ(got.sizes(), want.sizes());
  EXPECT_TRUE(got.equal(want)) << got << "\nwant\n" << want;
}

// A module as the C++ frontend spells one, reduced to what torch::save/load use:
// named_parameters(true) / named_buffers(true) returning items with key() and value().
struct Item {
  std::string key_;
  torch::Tensor value_;
  const std::string& key() const { return key_; }
  const torch::Tensor& value() const { return value_; }
};
struct TinyNet {
  std::vector<Item> params, buffers;
  std::vector<Item> named_parameters(bool /*recurse*/) const { return params; }
  std::vector<Item> named_buffers(bool /*recurse*/) const { return buffers; }
};

// The keys of torch.nn.Sequential(Linear(3, 2), BatchNorm1d(2)).state_dict().
std::shared_ptr<TinyNet> sequential_net() {
  auto net = std::make_shared<TinyNet>();
  net->params = {{"0.weight", torch::zeros({2, 3}).requires_grad_()},
                 {"0.bias", torch::zeros({2}).requires_grad_()},
                 {"1.weight", torch::zeros({2}).requires_grad_()},
                 {"1.bias", torch::zeros({2}).requires_grad_()}};
  net->buffers = {{"1.running_mean", torch::zeros({2})},
                  {"1.running_var", torch::zeros({2})},
                  {"1.num_batches_tracked", torch::zeros({}, torch::kLong)}};
  return net;
}

template <class F>
std::string checkpoint_error(F&& f) {
  try {
    f();
  } catch (const torch::serialize::CheckpointError& e) {
    return e.message();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no error";
}

TEST(SerializeTensor, RoundTripsEveryDtypeThroughFilesAndStreams) {
  const fs::path dir = temp_dir();
  for (const auto& [name, dtype] : kDtypes) {
    SCOPED_TRACE(name);
    const torch::Tensor t = pattern(dtype);
    const std::string path = (dir / ("t_" + name + ".pt")).string();
    torch::save(t, path);
    torch::Tensor back;
    torch::load(back, path);
    expect_same(back, t);
    std::stringstream stream;
    torch::save(t, stream);
    torch::Tensor from_stream;
    torch::load(from_stream, stream, torch::Device(torch::kCPU));
    expect_same(from_stream, t);
  }
  fs::remove_all(dir);
}

TEST(SerializeTensor, ViewsScalarsAndEmptyTensorsKeepTheirLayout) {
  const torch::Tensor base = torch::arange(12, torch::kFloat32).reshape({3, 4});
  const std::vector<torch::Tensor> cases = {
      base.t(), base.slice(1, 1, 3), torch::tensor(3.5, torch::kFloat64),
      torch::zeros({0, 3}), torch::arange(10, torch::kFloat32).slice(0, 3, 7)};
  for (const torch::Tensor& t : cases) {
    std::stringstream stream;
    torch::save(t, stream);
    torch::Tensor back;
    torch::load(back, stream);
    expect_same(back, t);
    EXPECT_EQ(back.strides(), t.strides());
  }
}

TEST(SerializeTensor, RequiresGradIsKept) {
  const torch::Tensor w = torch::ones({2}, torch::requires_grad());
  std::stringstream stream;
  torch::save(w, stream);
  torch::Tensor back;
  torch::load(back, stream);
  EXPECT_TRUE(back.requires_grad());
  EXPECT_TRUE(back.is_leaf());
}

TEST(SerializeVector, RoundTripKeepsSharedStorage) {
  const torch::Tensor x = torch::arange(4, torch::kFloat32);
  const std::vector<torch::Tensor> v = {x, x.slice(0, 1), torch::tensor({1, 2})};
  std::stringstream stream;
  torch::save(v, stream);
  std::vector<torch::Tensor> back;
  torch::load(back, stream);
  ASSERT_EQ(back.size(), 3u);
  for (size_t i = 0; i < v.size(); ++i) expect_same(back[i], v[i]);
  EXPECT_EQ(static_cast<float*>(back[1].data_ptr()), static_cast<float*>(back[0].data_ptr()) + 1);
}

TEST(SerializeVector, PickleSaveAndPickleLoadAreBytesOfTheSameFormat) {
  const torch::Tensor t = torch::arange(6, torch::kInt32).reshape({2, 3});
  const std::vector<char> bytes = torch::pickle_save(t);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 2), "PK");
  expect_same(torch::pickle_load(bytes).to_tensor(), t);
  const std::vector<char> list = torch::pickle_save(std::vector<torch::Tensor>{t, t * 2});
  const std::vector<torch::Tensor> back = torch::pickle_load(list).to_tensor_list();
  ASSERT_EQ(back.size(), 2u);
  expect_same(back[1], t * 2);
  EXPECT_THROW(torch::pickle_save(torch::IValue(3.5)), torch::TypeError);
}

TEST(SerializeStateDict, ModuleRoundTripCopiesIntoExistingParameters) {
  auto net = sequential_net();
  {
    torch::NoGradGuard no_grad;
    net->params[0].value_.copy_(torch::arange(6, torch::kFloat32).reshape({2, 3}));
    net->buffers[2].value_.fill_(3);
  }
  std::stringstream stream;
  torch::save(net, stream);
  auto other = sequential_net();
  const torch::Tensor weight = other->params[0].value_;
  torch::load(other, stream);
  EXPECT_TRUE(other->params[0].value_.is_same(weight));   // copied in place
  EXPECT_TRUE(weight.requires_grad());
  expect_same(weight.detach(), torch::arange(6, torch::kFloat32).reshape({2, 3}));
  EXPECT_EQ(other->buffers[2].value_.item<int64_t>(), 3);
}

TEST(SerializeStateDict, BuffersFollowTheirModulesParametersAsInPython) {
  auto net = std::make_shared<TinyNet>();
  net->params = {{"0.weight", torch::ones({1})}, {"2.weight", torch::ones({1})}};
  net->buffers = {{"0.running_mean", torch::zeros({1})}, {"1.scale", torch::zeros({1})}};
  std::stringstream stream;
  torch::save(net, stream);
  std::vector<std::string> keys;
  for (const auto& [name, t] : torch::serialize::load_state_dict(stream)) keys.push_back(name);
  EXPECT_EQ(keys, (std::vector<std::string>{"0.weight", "0.running_mean", "2.weight", "1.scale"}));
}

TEST(SerializeStateDict, MismatchesNameTheKeyAndChangeNothing) {
  const fs::path dir = temp_dir();
  const std::string path = (dir / "net.pt").string();
  auto net = sequential_net();
  torch::save(net, path);

  auto extra = sequential_net();
  extra->buffers.push_back({"2.scale", torch::ones({1})});
  EXPECT_NE(checkpoint_error([&] { torch::load(extra, path); }).find("'2.scale'"),
            std::string::npos);
  EXPECT_NE(checkpoint_error([&] { torch::load(extra, path); }).find("missing key"),
            std::string::npos);

  auto fewer = sequential_net();
  fewer->buffers.pop_back();
  EXPECT_NE(checkpoint_error([&] { torch::load(fewer, path); }).find("unexpected key"),
            std::string::npos);

  auto wide = sequential_net();
  {
    torch::NoGradGuard no_grad;
    wide->params[1].value_.fill_(9);
  }
  wide->params[0].value_ = torch::zeros({3, 3});
  const std::string msg = checkpoint_error([&] { torch::load(wide, path); });
  EXPECT_NE(msg.find("'0.weight'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("shape mismatch"), std::string::npos) << msg;
  EXPECT_EQ(wide->params[1].value_[0].item<float>(), 9.0f);   // checked before any copy
  fs::remove_all(dir);
}

// Something that saves itself through archives, as libtorch's optimizers do.
struct TinyOptimizer {
  torch::Tensor momentum = torch::zeros({3});
  torch::Tensor step = torch::zeros({}, torch::kLong);
  void save(torch::serialize::OutputArchive& archive) const {
    torch::serialize::OutputArchive state;
    state.write("momentum", momentum);
    archive.write("state", state);
    archive.write("step", step);
  }
  void load(torch::serialize::InputArchive& archive) {
    torch::serialize::InputArchive state;
    archive.read("state", state);
    state.read("momentum", momentum);
    archive.read("step", step);
  }
};

TEST(SerializeArchive, NestedArchivesAreDottedKeysOfOneStateDict) {
  const fs::path dir = temp_dir();
  const std::string path = (dir / "opt.pt").string();
  TinyOptimizer opt;
  opt.momentum = torch::tensor({1.0f, 2.0f, 3.0f});
  opt.step.fill_(4);
  torch::save(opt, path);
  const auto named = torch::serialize::load_state_dict(path);
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].first, "state.momentum");
  TinyOptimizer back;
  const torch::Tensor momentum = back.momentum;
  torch::load(back, path);
  EXPECT_TRUE(back.momentum.is_same(momentum));   // read in place
  expect_same(back.momentum, torch::tensor({1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(back.step.item<int64_t>(), 4);

  torch::serialize::InputArchive archive;
  archive.load_from(path);
  EXPECT_EQ(archive.keys(), (std::vector<std::string>{"state.momentum", "step"}));
  torch::Tensor fresh;
  EXPECT_TRUE(archive.try_read("step", fresh));
  EXPECT_EQ(fresh.item<int64_t>(), 4);
  EXPECT_FALSE(archive.try_read("nothing", fresh));
  torch::serialize::InputArchive state;
  archive.read("state", state);
  torch::Tensor wrong = torch::zeros({2});
  std::string msg = checkpoint_error([&] { state.read("momentum", wrong); });
  EXPECT_NE(msg.find("'state.momentum'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("shape mismatch"), std::string::npos) << msg;
  msg = checkpoint_error([&] { state.read("velocity", wrong); });
  EXPECT_NE(msg.find("no tensor 'state.velocity'"), std::string::npos) << msg;
  fs::remove_all(dir);
}

TEST(SerializeFromPython, TensorsOfEveryDtype) {
  for (const auto& [name, dtype] : kDtypes) {
    SCOPED_TRACE(name);
    torch::Tensor t;
    torch::load(t, reference("tensor_" + name + ".pt"));
    expect_same(t, pattern(dtype));
  }
}

TEST(SerializeFromPython, ViewsScalarsEmptyListsAndParameters) {
  torch::Tensor t;
  torch::load(t, reference("noncontiguous.pt"));
  expect_same(t, torch::arange(12, torch::kFloat32).reshape({3, 4}).t());
  EXPECT_EQ(t.strides(), torch::IntArrayRef({1, 4}));
  torch::load(t, reference("offset.pt"));
  expect_same(t, torch::arange(10, torch::kFloat32).slice(0, 3, 7));
  EXPECT_EQ(t.storage_offset(), 3);
  torch::load(t, reference("scalar.pt"));
  expect_same(t, torch::tensor(3.5, torch::kFloat64));
  torch::load(t, reference("empty.pt"));
  expect_same(t, torch::zeros({0, 3}));
  torch::load(t, reference("parameter.pt"));
  expect_same(t.detach(), torch::ones({2}));
  EXPECT_TRUE(t.requires_grad());

  std::vector<torch::Tensor> v;
  torch::load(v, reference("list.pt"));
  ASSERT_EQ(v.size(), 2u);
  expect_same(v[0], torch::arange(3, torch::kFloat32));
  expect_same(v[1], torch::tensor({1, 2}));
  torch::load(v, reference("shared.pt"));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(static_cast<float*>(v[1].data_ptr()), static_cast<float*>(v[0].data_ptr()) + 1);
}

TEST(SerializeFromPython, StateDictLoadsIntoAModule) {
  auto net = sequential_net();
  torch::load(net, reference("state_dict.pt"), torch::kCPU);
  expect_same(net->params[0].value_.detach(),
              torch::arange(6, torch::kFloat32).reshape({2, 3}) / 10);
  expect_same(net->params[1].value_.detach(), torch::tensor({0.5f, -0.5f}));
  expect_same(net->params[2].value_.detach(), torch::tensor({2.0f, 3.0f}));
  expect_same(net->buffers[0].value_, torch::tensor({0.25f, 0.75f}));
  expect_same(net->buffers[1].value_, torch::ones({2}));
  EXPECT_EQ(net->buffers[2].value_.item<int64_t>(), 7);
  const auto named = torch::serialize::load_state_dict(reference("state_dict.pt"));
  ASSERT_EQ(named.size(), 7u);
  EXPECT_EQ(named[0].first, "0.weight");
}

// Files Python's ember.save wrote (with its header checksum in the zip comment), from
// $EMBER_SERIALIZE_IN: test/python/test_cpp_serialize.py writes them and runs this case.
TEST(SerializeFromPython, FilesEmberSaveWrote) {
  const char* env = std::getenv("EMBER_SERIALIZE_IN");
  if (!env) GTEST_SKIP() << "run by test/python/test_cpp_serialize.py";
  const fs::path dir(env);
  for (const auto& [name, dtype] : kDtypes) {
    SCOPED_TRACE(name);
    torch::Tensor t;
    torch::load(t, (dir / ("tensor_" + name + ".pt")).string());
    expect_same(t, pattern(dtype));
  }
  auto net = sequential_net();
  torch::load(net, (dir / "state_dict.pt").string());
  expect_same(net->params[0].value_.detach(), torch::full({2, 3}, 0.5f));
  EXPECT_EQ(net->buffers[2].value_.item<int64_t>(), 3);
  std::vector<torch::Tensor> v;
  torch::load(v, (dir / "list.pt").string());
  ASSERT_EQ(v.size(), 2u);
  expect_same(v[1], torch::arange(4, torch::kFloat32).slice(0, 1));
}

TEST(SerializeBadInput, ForeignGlobalsCompressionAndWrongContentsAreCheckpointErrors) {
  torch::Tensor t;
  std::string msg = checkpoint_error([&] { torch::load(t, reference("counter.pt")); });
  EXPECT_NE(msg.find("collections.Counter"), std::string::npos) << msg;
  msg = checkpoint_error([&] { torch::load(t, reference("compressed.pt")); });
  EXPECT_NE(msg.find("compressed"), std::string::npos) << msg;
  msg = checkpoint_error([&] { torch::load(t, reference("list.pt")); });
  EXPECT_NE(msg.find("expected the checkpoint to hold a tensor"), std::string::npos) << msg;
  msg = checkpoint_error([&] { torch::load(t, reference("no_such_file.pt")); });
  EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;
  std::stringstream junk("not a checkpoint at all");
  msg = checkpoint_error([&] { torch::load(t, junk); });
  EXPECT_NE(msg.find("not a zip archive"), std::string::npos) << msg;
}

TEST(SerializeBadInput, EveryTruncationAndEveryFlippedByteIsACheckpointError) {
  std::stringstream stream;
  torch::save(std::vector<torch::Tensor>{torch::arange(3, torch::kFloat32)}, stream);
  const std::string good = stream.str();
  for (size_t n = 0; n < good.size(); ++n) {
    std::stringstream cut(good.substr(0, n));
    std::vector<torch::Tensor> v;
    ASSERT_EQ(checkpoint_error([&] { torch::load(v, cut); }).find("wrong"), std::string::npos)
        << "truncated to " << n;
    ASSERT_NE(checkpoint_error([&] { torch::load(v, cut); }), "no error") << n;
  }
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0xFF);
    std::stringstream in(bad);
    std::vector<torch::Tensor> v;
    const std::string msg = checkpoint_error([&] { torch::load(v, in); });
    ASSERT_TRUE(msg != "no error" && msg.find("wrong exception") == std::string::npos)
        << "byte " << i << ": " << msg;
  }
}

// A checkpoint around a hand-written pickle, with one 16-byte float storage "0".
std::string crafted(const std::string& pickle) {
  static const std::string storage(16, '\0');
  std::ostringstream out;
  torch::serialize::write_zip(out, {{"archive/data.pkl", pickle.data(), pickle.size()},
                                    {"archive/data/0", storage.data(), storage.size()}});
  return out.str();
}

std::string tensor_pickle(const std::string& numel, const std::string& size,
                          const std::string& stride) {
  return std::string("\x80\x02" "ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storage"
                     "ctorch\nFloatStorage\nX\x01\x00\x00\x00" "0X\x03\x00\x00\x00" "cpu", 83) +
         numel + std::string("tQK\x00", 4) + size + "\x85" + stride + "\x85\x89)tR.";
}

TEST(SerializeBadInput, CraftedPicklesAreRefusedWithReasons) {
  const auto load_error = [](const std::string& file) {
    std::stringstream in(file);
    torch::Tensor t;
    return checkpoint_error([&] { torch::load(t, in); });
  };
  EXPECT_EQ(load_error(crafted(tensor_pickle("K\x04", "K\x04", "K\x01"))), "no error");
  std::string msg = load_error(crafted(std::string("\x80\x02" "cos\nsystem\nX\x02\x00\x00\x00lsR.", 22)));
  EXPECT_NE(msg.find("'os.system'"), std::string::npos) << msg;
  msg = load_error(crafted(tensor_pickle(std::string("\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f", 10),
                                         "K\x04", "K\x01")));
  EXPECT_NE(msg.find("holds 16 bytes"), std::string::npos) << msg;
  const std::string big("\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x40", 10);
  msg = load_error(crafted(tensor_pickle("K\x04", big, big)));
  EXPECT_NE(msg.find("overflows"), std::string::npos) << msg;
  msg = load_error(crafted(tensor_pickle("K\x04", "K\x05", "K\x01")));
  EXPECT_NE(msg.find("reaches past the end of its storage"), std::string::npos) << msg;
  msg = load_error(crafted(std::string("\x80\x02R.", 4)));
  EXPECT_NE(msg.find("malformed"), std::string::npos) << msg;
  msg = load_error(crafted(std::string("\x80\x02\xff.", 4)));
  EXPECT_NE(msg.find("opcode 0xff"), std::string::npos) << msg;
}

// Files for test/python/test_cpp_serialize.py, which checks them with torch.load: into
// $EMBER_SERIALIZE_OUT when set, else a temporary folder.
TEST(SerializeForPython, WritesCheckpointsPythonReads) {
  const char* env = std::getenv("EMBER_SERIALIZE_OUT");
  const fs::path dir = env ? fs::path(env) : temp_dir();
  fs::create_directories(dir);
  for (const auto& [name, dtype] : kDtypes) {
    torch::save(pattern(dtype), (dir / ("tensor_" + name + ".pt")).string());
  }
  const torch::Tensor base = torch::arange(12, torch::kFloat32).reshape({3, 4});
  torch::save(base.t(), (dir / "noncontiguous.pt").string());
  torch::save(std::vector<torch::Tensor>{base, base.slice(0, 1), torch::tensor(2.5)},
              (dir / "list.pt").string());
  auto net = sequential_net();
  {
    torch::NoGradGuard no_grad;
    net->params[0].value_.copy_(base.slice(1, 0, 3).slice(0, 0, 2));
    net->buffers[2].value_.fill_(5);
  }
  torch::save(net, (dir / "state_dict.pt").string());
  const std::vector<char> bytes = torch::pickle_save(torch::arange(4, torch::kInt16));
  std::ofstream((dir / "pickle_save.pt").string(), std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(fs::exists(dir / "state_dict.pt"));
  if (!env) fs::remove_all(dir);
}

}  // namespace
