// The zip container of checkpoints (frontend/serialize/Zip.h): the same layout as
// python/ember/serialization/_zip.py, so files move between ember.save, torch.save and
// ember::save unchanged.

#include "frontend/serialize/Zip.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>

#include "frontend/serialize/CheckpointError.h"

namespace ember::serialize {
namespace zip_detail {

constexpr uint64_t kAlign = 64;
constexpr uint64_t kZip64Limit = 0xFFFFFFFFu;
constexpr uint32_t kMask32 = 0xFFFFFFFFu;
constexpr uint16_t kMask16 = 0xFFFF;
constexpr uint32_t kSigLocal = 0x04034B50, kSigCentral = 0x02014B50;
constexpr uint32_t kSigEocd = 0x06054B50, kSigEocd64 = 0x06064B50, kSigLocator = 0x07064B50;
constexpr size_t kLocalSize = 30, kCentralSize = 46, kEocdSize = 22, kEocd64Size = 56,
                 kLocatorSize = 20;
constexpr uint16_t kDosDate = 0x0021;   // 1980-01-01, the first date zip can hold
constexpr std::string_view kComment = "ember-crc32:";
constexpr std::string_view kIntegrityRecord = ".data/ember_integrity";

// Slicing-by-8 tables: table[0] is the byte-at-a-time table, table[k] advances it k bytes.
using CrcTables = std::array<std::array<uint32_t, 256>, 8>;
CrcTables make_crc_tables() {
  CrcTables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (size_t k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  }
  return t;
}

// Little-endian fields appended to a header being built.
struct Bytes {
  std::string s;
  template <class T>
  Bytes& put(T v) {
    for (size_t i = 0; i < sizeof(T); ++i) s.push_back(static_cast<char>((uint64_t(v) >> (8 * i)) & 0xFF));
    return *this;
  }
  Bytes& text(std::string_view text) {
    s.append(text);
    return *this;
  }
};

template <class T>
T get(std::string_view buf, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(static_cast<uint8_t>(buf[at + i])) << (8 * i);
  return static_cast<T>(v);
}

// The first n 8-byte values of the zip64 field (id 1) in an extra-field block.
std::vector<uint64_t> zip64_values(std::string_view extra, size_t n, const std::string& name) {
  size_t pos = 0;
  while (pos + 4 <= extra.size()) {
    const uint16_t tag = get<uint16_t>(extra, pos), length = get<uint16_t>(extra, pos + 2);
    if (tag == 1) {
      EMBER_CHECK_CHECKPOINT(length >= 8 * n && pos + 4 + length <= extra.size(),
                             "the checkpoint is corrupted: zip record '", name,
                             "' has a short zip64 field");
      std::vector<uint64_t> out;
      for (size_t i = 0; i < n; ++i) out.push_back(get<uint64_t>(extra, pos + 4 + 8 * i));
      return out;
    }
    pos += 4 + size_t(length);
  }
  EMBER_THROW(CheckpointError, "load(): the checkpoint is corrupted: zip record '", name,
              "' needs a zip64 field, but has none");
}

}  // namespace zip_detail

uint32_t crc32(const void* data, size_t size, uint32_t crc) {
  static const zip_detail::CrcTables t = zip_detail::make_crc_tables();
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = crc ^ 0xFFFFFFFFu;
  for (; size >= 8; size -= 8, p += 8) {
    const uint32_t lo = c ^ (uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
                             uint32_t(p[3]) << 24);
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
        t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
  }
  for (; size > 0; --size, ++p) c = t[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void write_zip(std::ostream& out, const std::vector<ZipRecord>& records) {
  using namespace zip_detail;
  uint32_t header_crc = 0;   // of every byte that is not a record's data
  uint64_t offset = 0;
  std::string central;
  auto emit = [&](const std::string& bytes) {
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    header_crc = crc32(bytes.data(), bytes.size(), header_crc);
  };
  for (const ZipRecord& r : records) {
    const uint64_t size = r.size;
    const uint32_t crc = crc32(r.data, r.size);
    const bool big = size >= kZip64Limit || offset >= kZip64Limit;
    Bytes zip64;
    if (big) zip64.put<uint16_t>(1).put<uint16_t>(16).put<uint64_t>(size).put<uint64_t>(size);
    const uint64_t start = offset + kLocalSize + r.name.size() + zip64.s.size() + 4;
    const uint64_t pad = (kAlign - start % kAlign) % kAlign;
    Bytes extra = zip64;
    extra.put<uint16_t>(0x4246).put<uint16_t>(static_cast<uint16_t>(pad)).text(std::string(pad, 'Z'));
    const uint32_t shown = big ? kMask32 : static_cast<uint32_t>(size);
    Bytes local;
    local.put<uint32_t>(kSigLocal).put<uint16_t>(big ? 45 : 20).put<uint16_t>(0).put<uint16_t>(0)
        .put<uint16_t>(0).put<uint16_t>(kDosDate).put<uint32_t>(crc).put<uint32_t>(shown)
        .put<uint32_t>(shown).put<uint16_t>(static_cast<uint16_t>(r.name.size()))
        .put<uint16_t>(static_cast<uint16_t>(extra.s.size())).text(r.name).text(extra.s);
    emit(local.s);
    out.write(static_cast<const char*>(r.data), static_cast<std::streamsize>(size));
    Bytes c_extra;
    uint32_t c_offset = static_cast<uint32_t>(offset);
    if (big) {
      c_extra.put<uint16_t>(1).put<uint16_t>(24).put<uint64_t>(size).put<uint64_t>(size)
          .put<uint64_t>(offset);
      c_offset = kMask32;
    }
    Bytes entry;
    entry.put<uint32_t>(kSigCentral).put<uint16_t>(45).put<uint16_t>(big ? 45 : 20)
        .put<uint16_t>(0).put<uint16_t>(0).put<uint16_t>(0).put<uint16_t>(kDosDate)
        .put<uint32_t>(crc).put<uint32_t>(shown).put<uint32_t>(shown)
        .put<uint16_t>(static_cast<uint16_t>(r.name.size()))
        .put<uint16_t>(static_cast<uint16_t>(c_extra.s.size())).put<uint16_t>(0)
        .put<uint16_t>(0).put<uint16_t>(0).put<uint32_t>(0).put<uint32_t>(c_offset)
        .text(r.name).text(c_extra.s);
    central += entry.s;
    offset += local.s.size() + size;
  }
  emit(central);
  const uint64_t count = records.size();
  Bytes eocd;
  const uint16_t comment_len = static_cast<uint16_t>(kComment.size() + 8);
  if (count >= kMask16 || central.size() >= kZip64Limit || offset >= kZip64Limit) {
    const uint64_t eocd64_at = offset + central.size();
    Bytes tail;
    tail.put<uint32_t>(kSigEocd64).put<uint64_t>(kEocd64Size - 12).put<uint16_t>(45)
        .put<uint16_t>(45).put<uint32_t>(0).put<uint32_t>(0).put<uint64_t>(count)
        .put<uint64_t>(count).put<uint64_t>(central.size()).put<uint64_t>(offset);
    tail.put<uint32_t>(kSigLocator).put<uint32_t>(0).put<uint64_t>(eocd64_at).put<uint32_t>(1);
    emit(tail.s);
    eocd.put<uint32_t>(kSigEocd).put<uint16_t>(0).put<uint16_t>(0).put<uint16_t>(kMask16)
        .put<uint16_t>(kMask16).put<uint32_t>(kMask32).put<uint32_t>(kMask32)
        .put<uint16_t>(comment_len);
  } else {
    eocd.put<uint32_t>(kSigEocd).put<uint16_t>(0).put<uint16_t>(0)
        .put<uint16_t>(static_cast<uint16_t>(count)).put<uint16_t>(static_cast<uint16_t>(count))
        .put<uint32_t>(static_cast<uint32_t>(central.size()))
        .put<uint32_t>(static_cast<uint32_t>(offset)).put<uint16_t>(comment_len);
  }
  emit(eocd.s);
  char hex[9];
  std::snprintf(hex, sizeof(hex), "%08x", header_crc);
  out << kComment << hex;
  EMBER_CHECK(out.good(), "save(): writing the checkpoint failed (disk full or stream closed?)");
}

ZipReader::ZipReader(std::string buffer)
    : buf_(std::make_shared<std::string>(std::move(buffer))) {
  read();
}

std::string_view ZipReader::data(const std::string& name) const {
  const auto it = records_.find(name);
  EMBER_CHECK_CHECKPOINT(it != records_.end(), "the checkpoint has no zip record '", name, "'");
  EMBER_CHECK_CHECKPOINT(it->second.method == 0, "the checkpoint's zip record '", name,
                         "' is compressed (method ", it->second.method,
                         "); ember reads stored records, which torch.save writes");
  return std::string_view(*buf_).substr(it->second.start, it->second.size);
}

void ZipReader::read() {
  using namespace zip_detail;
  const std::string_view buf(*buf_);
  const size_t size = buf.size();
  const size_t tail_start = size > kEocdSize + kMask16 ? size - kEocdSize - kMask16 : 0;
  // The last end-record signature whose comment length reaches the end exactly.
  size_t at = std::string_view::npos;
  for (size_t pos = buf.rfind("PK\x05\x06"); pos != std::string_view::npos && pos >= tail_start;
       pos = pos == 0 ? std::string_view::npos : buf.rfind("PK\x05\x06", pos - 1)) {
    if (pos + kEocdSize <= size && pos + kEocdSize + get<uint16_t>(buf, pos + 20) == size) {
      at = pos;
      break;
    }
  }
  EMBER_CHECK_CHECKPOINT(at != std::string_view::npos,
                         "the checkpoint is truncated or has trailing bytes: its zip archive "
                         "has no end record (end of central directory) at its end (", size,
                         " bytes read)");
  uint32_t disk = get<uint16_t>(buf, at + 4), cd_disk = get<uint16_t>(buf, at + 6);
  uint64_t here = get<uint16_t>(buf, at + 8), count = get<uint16_t>(buf, at + 10);
  uint64_t cd_size = get<uint32_t>(buf, at + 12), cd_offset = get<uint32_t>(buf, at + 16);
  comment_ = std::string(buf.substr(at + kEocdSize));
  uint64_t cd_end = at;
  std::vector<std::pair<uint64_t, uint64_t>> gaps;   // non-data ranges, for the comment
  gaps.emplace_back(at, at + kEocdSize);
  if (at >= kLocatorSize && buf.substr(at - kLocatorSize, 4) == "PK\x06\x07") {
    const uint64_t eocd64_at = get<uint64_t>(buf, at - kLocatorSize + 8);
    EMBER_CHECK_CHECKPOINT(at >= kLocatorSize + kEocd64Size &&
                               eocd64_at <= at - kLocatorSize - kEocd64Size,
                           "the checkpoint is corrupted: its zip64 end record is out of bounds");
    EMBER_CHECK_CHECKPOINT(get<uint32_t>(buf, eocd64_at) == kSigEocd64,
                           "the checkpoint is corrupted: its zip64 end record has a bad signature");
    disk = get<uint32_t>(buf, eocd64_at + 16);
    cd_disk = get<uint32_t>(buf, eocd64_at + 20);
    here = get<uint64_t>(buf, eocd64_at + 24);
    count = get<uint64_t>(buf, eocd64_at + 32);
    cd_size = get<uint64_t>(buf, eocd64_at + 40);
    cd_offset = get<uint64_t>(buf, eocd64_at + 48);
    cd_end = eocd64_at;
    gaps.emplace_back(cd_end, at);
  } else {
    EMBER_CHECK_CHECKPOINT(cd_size != kMask32 && cd_offset != kMask32 && here != kMask16 &&
                               count != kMask16,
                           "the checkpoint is corrupted: its zip end record needs a zip64 "
                           "record, but there is none");
  }
  EMBER_CHECK_CHECKPOINT(disk == 0 && cd_disk == 0 && here == count,
                         "the checkpoint is a multi-part zip archive, which ember does not read");
  EMBER_CHECK_CHECKPOINT(cd_offset <= cd_end && cd_size == cd_end - cd_offset,
                         "the checkpoint is corrupted or truncated: its zip central directory "
                         "does not end where the end record starts");
  gaps.emplace_back(cd_offset, cd_end);
  const std::string_view directory = buf.substr(cd_offset, cd_end - cd_offset);
  size_t pos = 0;
  for (uint64_t i = 0; i < count; ++i) pos = read_entry(directory, pos, i, cd_offset, gaps);
  EMBER_CHECK_CHECKPOINT(pos == directory.size(), "the checkpoint is corrupted: its zip central "
                         "directory has bytes after its last entry");
  check_comment(gaps);
}

size_t ZipReader::read_entry(std::string_view directory, size_t pos, size_t i, uint64_t cd_offset,
                             std::vector<std::pair<uint64_t, uint64_t>>& gaps) {
  using namespace zip_detail;
  const std::string_view buf(*buf_);
  EMBER_CHECK_CHECKPOINT(pos + kCentralSize <= directory.size(), "the checkpoint is corrupted: "
                         "its zip central directory ends inside entry ", i);
  EMBER_CHECK_CHECKPOINT(get<uint32_t>(directory, pos) == kSigCentral, "the checkpoint is "
                         "corrupted: zip central directory entry ", i, " has a bad signature");
  const uint16_t flags = get<uint16_t>(directory, pos + 8);
  const uint16_t method = get<uint16_t>(directory, pos + 10);
  const uint32_t crc = get<uint32_t>(directory, pos + 16);
  uint64_t csize = get<uint32_t>(directory, pos + 20), usize = get<uint32_t>(directory, pos + 24);
  const size_t name_len = get<uint16_t>(directory, pos + 28);
  const size_t extra_len = get<uint16_t>(directory, pos + 30);
  const size_t comment_len = get<uint16_t>(directory, pos + 32);
  uint64_t offset = get<uint32_t>(directory, pos + 42);
  const size_t name_at = pos + kCentralSize;
  const size_t end = name_at + name_len + extra_len + comment_len;
  EMBER_CHECK_CHECKPOINT(end <= directory.size(), "the checkpoint is corrupted: its zip central "
                         "directory ends inside entry ", i);
  const std::string name(directory.substr(name_at, name_len));
  const std::string_view extra = directory.substr(name_at + name_len, extra_len);
  const size_t masked = (usize == kMask32) + (csize == kMask32) + (offset == kMask32);
  if (masked != 0) {
    const std::vector<uint64_t> values = zip64_values(extra, masked, name);
    size_t k = 0;
    if (usize == kMask32) usize = values[k++];
    if (csize == kMask32) csize = values[k++];
    if (offset == kMask32) offset = values[k++];
  }
  EMBER_CHECK_CHECKPOINT(!(flags & 1), "the checkpoint's zip record '", name, "' is encrypted");
  EMBER_CHECK_CHECKPOINT(method != 0 || csize == usize, "the checkpoint is corrupted: zip record '",
                         name, "' is stored but its sizes differ (", csize, " and ", usize, ")");
  EMBER_CHECK_CHECKPOINT(!records_.count(name), "the checkpoint is corrupted: zip record '", name,
                         "' appears twice");
  EMBER_CHECK_CHECKPOINT(offset <= cd_offset && cd_offset - offset >= kLocalSize, "the checkpoint is corrupted: zip "
                         "record '", name, "' starts out of bounds");
  const size_t lname_len = get<uint16_t>(buf, offset + 26);
  const size_t lextra_len = get<uint16_t>(buf, offset + 28);
  const uint64_t data_at = offset + kLocalSize + lname_len + lextra_len;
  const std::string mismatch = "the checkpoint is corrupted: the local header of zip record '" +
                               name + "' does not match its central directory entry";
  EMBER_CHECK_CHECKPOINT(get<uint32_t>(buf, offset) == kSigLocal &&
                             get<uint16_t>(buf, offset + 8) == method &&
                             data_at <= cd_offset && csize <= cd_offset - data_at &&
                             buf.substr(offset + kLocalSize, lname_len) == name,
                         mismatch);
  if (!(get<uint16_t>(buf, offset + 6) & 8)) {   // no data descriptor: crc and sizes repeat
    uint64_t lcsize = get<uint32_t>(buf, offset + 18), lusize = get<uint32_t>(buf, offset + 22);
    if (lcsize == kMask32 || lusize == kMask32) {
      const std::vector<uint64_t> v =
          zip64_values(buf.substr(data_at - lextra_len, lextra_len), 2, name);
      lusize = v[0];
      lcsize = v[1];
    }
    EMBER_CHECK_CHECKPOINT(get<uint32_t>(buf, offset + 14) == crc && lcsize == csize &&
                               lusize == usize,
                           mismatch);
  }
  if (method == 0) {   // a compressed record is never read (data() refuses it)
    EMBER_CHECK_CHECKPOINT(crc32(buf.data() + data_at, csize) == crc, "the checkpoint is "
                           "corrupted: checksum mismatch in zip record '", name, "' (", csize,
                           " bytes)");
  }
  records_[name] = Entry{static_cast<size_t>(data_at), static_cast<size_t>(csize), method};
  names_.push_back(name);
  gaps.emplace_back(offset, data_at);
  return end;
}

void ZipReader::check_comment(std::vector<std::pair<uint64_t, uint64_t>>& gaps) const {
  using namespace zip_detail;
  const bool marked = std::any_of(names_.begin(), names_.end(), [](const std::string& n) {
    return n.size() > kIntegrityRecord.size() &&
           n.compare(n.size() - kIntegrityRecord.size() - 1, std::string::npos,
                     "/" + std::string(kIntegrityRecord)) == 0;
  });
  const bool has_comment = comment_.rfind(kComment, 0) == 0;
  if (!marked && !has_comment) return;   // another writer's archive: the CRCs were checked
  EMBER_CHECK_CHECKPOINT(has_comment && comment_.size() == kComment.size() + 8,
                         "the checkpoint is corrupted: its zip comment should hold the "
                         "checksum of its headers, but is '", comment_.substr(0, 40), "'");
  std::sort(gaps.begin(), gaps.end());
  uint32_t crc = 0;
  for (const auto& [lo, hi] : gaps) crc = crc32(buf_->data() + lo, hi - lo, crc);
  const std::string hex = comment_.substr(kComment.size());
  char* stop = nullptr;
  const unsigned long want = std::strtoul(hex.c_str(), &stop, 16);
  EMBER_CHECK_CHECKPOINT(stop == hex.c_str() + hex.size() && want == crc,
                         "the checkpoint is corrupted: checksum mismatch in its zip headers "
                         "(local headers, central directory or end record)");
}

}  // namespace ember::serialize
