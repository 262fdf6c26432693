#include "perfit/data/wire.hpp"

#include <cstring>

#include "perfit/core/error.hpp"

namespace perfit::data {

namespace {

using Tag = WireTag;

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

}  // namespace

void WireWriter::count(std::uint64_t n) { put(bytes_, n); }
void WireWriter::number(double v) { put(bytes_, v); }

void WireWriter::text(std::string_view s) {
  count(s.size());
  bytes_ += s;
}

void WireWriter::text_parts(std::initializer_list<std::string_view> parts) {
  std::size_t n = 0;
  for (const std::string_view s : parts) n += s.size();
  count(n);
  for (const std::string_view s : parts) bytes_ += s;
}

void WireWriter::numbers(const std::vector<double>& v) {
  count(v.size());
  for (const double x : v) number(x);
}

void WireWriter::value(const AttributeValue& v) {
  std::visit([this](const auto& x) { value(x); }, v);
}

void WireWriter::value(double v) {
  put(bytes_, Tag::number);
  number(v);
}

void WireWriter::value(std::int64_t v) {
  put(bytes_, Tag::integer);
  put(bytes_, v);
}

void WireWriter::value(const std::string& v) {
  put(bytes_, Tag::text);
  text(v);
}

void WireWriter::attributes(const Attributes& a) {
  count(a.size());
  for (const auto& [key, v] : a) {
    text(key);
    value(v);
  }
}

void WireWriter::table(const MeasurementTable& t) {
  count(t.columns().size());
  for (const auto& c : t.columns()) {
    text(c.name());
    switch (c.type()) {
      case ColumnType::float64:
        put(bytes_, Tag::number);
        numbers(c.f64());
        break;
      case ColumnType::int64:
        put(bytes_, Tag::integer);
        count(c.i64().size());
        for (const std::int64_t x : c.i64()) put(bytes_, x);
        break;
      case ColumnType::string:
        put(bytes_, Tag::text);
        count(c.str().size());
        for (const auto& s : c.str()) text(s);
        break;
    }
  }
}

const char* WireReader::take(std::size_t n) {
  if (n > bytes_.size() - at_) {
    throw DataError(what_ + " is truncated: " + std::to_string(bytes_.size()) +
                    " bytes, more expected at byte " + std::to_string(at_));
  }
  const char* p = bytes_.data() + at_;
  at_ += n;
  return p;
}

std::uint64_t WireReader::count() {
  std::uint64_t n = 0;
  std::memcpy(&n, take(sizeof n), sizeof n);
  return n;
}

double WireReader::number() {
  double v = 0;
  std::memcpy(&v, take(sizeof v), sizeof v);
  return v;
}

std::string WireReader::text() { return std::string(text_view()); }

std::string_view WireReader::text_view() {
  const std::uint64_t n = elements(1);
  return {take(n), n};
}

std::int64_t WireReader::integer() {
  std::int64_t i = 0;
  std::memcpy(&i, take(sizeof i), sizeof i);
  return i;
}

WireTag WireReader::tag() {
  const auto t = static_cast<std::uint8_t>(*take(1));
  if (t > static_cast<std::uint8_t>(Tag::integer)) {
    throw DataError(what_ + " holds an unknown value type " + std::to_string(t) + " at byte " +
                    std::to_string(at_ - 1));
  }
  return static_cast<Tag>(t);
}

std::uint64_t WireReader::elements(std::size_t least_bytes) {
  const std::uint64_t n = count();
  if (n > (bytes_.size() - at_) / least_bytes)
    take(bytes_.size() - at_ + 1);  // truncated: said so, nothing allocated
  return n;
}

std::vector<double> WireReader::numbers() {
  const std::uint64_t n = elements(sizeof(double));
  const char* p = take(n * sizeof(double));
  std::vector<double> v(n);
  if (n > 0) std::memcpy(v.data(), p, n * sizeof(double));
  return v;
}

AttributeValue WireReader::value() {
  switch (tag()) {
    case Tag::number:
      return number();
    case Tag::integer:
      return integer();
    case Tag::text:
      return text();
  }
  return {};
}

Attributes WireReader::attributes() {
  Attributes a;
  for (std::uint64_t n = count(); n > 0; --n) {
    std::string key = text();
    a.emplace(std::move(key), value());
  }
  return a;
}

MeasurementTable WireReader::table() {
  MeasurementTable t;
  for (std::uint64_t cols = count(); cols > 0; --cols) {
    const std::string name = text();
    const Tag kind = tag();
    if (kind == Tag::number) {
      t.add_column(Column(name, numbers()));
    } else if (kind == Tag::integer) {
      std::vector<std::int64_t> v(elements(sizeof(std::int64_t)));
      const char* p = take(v.size() * sizeof(std::int64_t));
      if (!v.empty()) std::memcpy(v.data(), p, v.size() * sizeof(std::int64_t));
      t.add_column(Column(name, std::move(v)));
    } else {
      std::vector<std::string> v(elements(sizeof(std::uint64_t)));
      for (auto& s : v) s = text();
      t.add_column(Column(name, std::move(v)));
    }
  }
  return t;
}

}  // namespace perfit::data
