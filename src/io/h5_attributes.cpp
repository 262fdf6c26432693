#include "h5_attributes.hpp"

#include <vector>

#include "perfit/core/error.hpp"

namespace perfit::io::detail {

H5Datatype vlen_string_type() {
  H5Datatype t(h5_check(H5Tcopy(H5T_C_S1), "copy string type"));
  h5_check_status(H5Tset_size(t.get(), H5T_VARIABLE), "set variable string size");
  h5_check_status(H5Tset_cset(t.get(), H5T_CSET_UTF8), "set UTF-8 charset");
  return t;
}

namespace {

data::AttributeValue read_one(hid_t attr, const std::string& what) {
  H5Datatype ftype(h5_check(H5Aget_type(attr), "type of " + what));
  H5Dataspace space(h5_check(H5Aget_space(attr), "space of " + what));
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n != 1) return std::string("<array of ") + std::to_string(n) + " values>";
  switch (H5Tget_class(ftype.get())) {
    case H5T_FLOAT: {
      double v = 0;
      h5_check_status(H5Aread(attr, H5T_NATIVE_DOUBLE, &v), "read " + what);
      return v;
    }
    case H5T_INTEGER: {
      std::int64_t v = 0;
      h5_check_status(H5Aread(attr, H5T_NATIVE_INT64, &v), "read " + what);
      return v;
    }
    case H5T_STRING: {
      if (H5Tis_variable_str(ftype.get()) > 0) {
        H5Datatype mtype = vlen_string_type();
        char* s = nullptr;
        h5_check_status(H5Aread(attr, mtype.get(), &s), "read " + what);
        std::string out = s ? s : "";
        H5free_memory(s);
        return out;
      }
      const std::size_t size = H5Tget_size(ftype.get());
      std::vector<char> buf(size + 1, '\0');
      h5_check_status(H5Aread(attr, ftype.get(), buf.data()), "read " + what);
      return std::string(buf.data());
    }
    default:
      return std::string("<unsupported type>");
  }
}

struct AttrCollector {
  data::Attributes* out;
  const std::string* where;
};

herr_t collect(hid_t loc, const char* name, const H5A_info_t*, void* data) {
  auto* c = static_cast<AttrCollector*>(data);
  H5Attribute attr(h5_check(H5Aopen(loc, name, H5P_DEFAULT),
                            "open attribute '" + std::string(name) + "' of " + *c->where));
  (*c->out)[name] = read_one(attr.get(), "attribute '" + std::string(name) + "' of " + *c->where);
  return 0;
}

}  // namespace

data::Attributes read_attributes(hid_t obj, const std::string& where) {
  data::Attributes out;
  AttrCollector c{&out, &where};
  h5_check_status(H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &c),
                  "list attributes of " + where);
  return out;
}

void write_attribute(hid_t obj, const std::string& name, const data::AttributeValue& v) {
  H5Dataspace space(h5_check(H5Screate(H5S_SCALAR), "scalar space"));
  const std::string what = "write attribute '" + name + "'";
  if (const auto* s = std::get_if<std::string>(&v)) {
    H5Datatype t = vlen_string_type();
    H5Attribute a(h5_check(
        H5Acreate2(obj, name.c_str(), t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), what));
    const char* p = s->c_str();
    h5_check_status(H5Awrite(a.get(), t.get(), &p), what);
  } else if (const auto* d = std::get_if<double>(&v)) {
    H5Attribute a(h5_check(
        H5Acreate2(obj, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
        what));
    h5_check_status(H5Awrite(a.get(), H5T_NATIVE_DOUBLE, d), what);
  } else {
    const auto& i = std::get<std::int64_t>(v);
    H5Attribute a(h5_check(
        H5Acreate2(obj, name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), what));
    h5_check_status(H5Awrite(a.get(), H5T_NATIVE_INT64, &i), what);
  }
}

std::optional<data::AttributeValue> read_attribute(hid_t obj, const std::string& name,
                                                   const std::string& where) {
  if (H5Aexists(obj, name.c_str()) <= 0) return std::nullopt;
  H5Attribute attr(h5_check(H5Aopen(obj, name.c_str(), H5P_DEFAULT),
                            "open attribute '" + name + "' of " + where));
  return read_one(attr.get(), "attribute '" + name + "' of " + where);
}

}  // namespace perfit::io::detail
