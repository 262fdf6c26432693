// Private helpers shared by the store reader and writer: HDF5 attributes and string types.
#pragma once

#include <optional>
#include <string>

#include "h5_handle.hpp"
#include "perfit/data/measurement_table.hpp"

namespace perfit::io::detail {

// Variable-length UTF-8 C string type (what h5py reads back as str).
H5Datatype vlen_string_type();

data::Attributes read_attributes(hid_t obj, const std::string& where);
// One attribute, or nullopt when obj has none of that name.
std::optional<data::AttributeValue> read_attribute(hid_t obj, const std::string& name,
                                                   const std::string& where);
void write_attribute(hid_t obj, const std::string& name, const data::AttributeValue& v);

}  // namespace perfit::io::detail
