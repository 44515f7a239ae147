#pragma once
/// The zip container of PyTorch's checkpoint format (python/ember/serialization/_zip.py
/// writes and reads the same bytes): stored records, each record's data on a 64-byte
/// boundary, zip64 records where sizes or offsets reach 4 GiB, and ember's header checksum
/// in the archive comment. Internal to ember::save/ember::load.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "c10/macros/Export.h"

namespace ember::serialize {

/// The CRC-32 (zlib's) of size bytes at data, continuing from crc.
EMBER_API uint32_t crc32(const void* data, size_t size, uint32_t crc = 0);

/// One record of an archive being written: its name and bytes (owned by the caller).
struct ZipRecord {
  std::string name;
  const void* data;
  size_t size;
};

/// Writes an uncompressed zip archive of records, in order, to out; throws Error when the
/// stream fails.
EMBER_API void write_zip(std::ostream& out, const std::vector<ZipRecord>& records);

/// The records of a zip archive held in memory, after every check (central directory
/// against local headers, each record's CRC-32, ember's header checksum where present);
/// a failed check throws CheckpointError naming what is wrong.
class EMBER_API ZipReader {
 public:
  explicit ZipReader(std::string buffer);
  /// The names of the records, in archive order.
  const std::vector<std::string>& names() const { return names_; }
  /// Whether the archive holds a record named name.
  bool has(const std::string& name) const { return records_.count(name) != 0; }
  /// The bytes of a stored record; CheckpointError for a missing or compressed one.
  std::string_view data(const std::string& name) const;
  /// The archive's bytes, which data() views: tensors over them keep this alive.
  const std::shared_ptr<std::string>& buffer() const { return buf_; }

 private:
  struct Entry {
    size_t start;
    size_t size;
    uint16_t method;
  };
  void read();
  size_t read_entry(std::string_view directory, size_t pos, size_t index, uint64_t cd_offset,
                    std::vector<std::pair<uint64_t, uint64_t>>& gaps);
  void check_comment(std::vector<std::pair<uint64_t, uint64_t>>& gaps) const;

  std::shared_ptr<std::string> buf_;
  std::string comment_;
  std::vector<std::string> names_;
  std::map<std::string, Entry> records_;
};

}  // namespace ember::serialize
