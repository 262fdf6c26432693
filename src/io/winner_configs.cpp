#include "perfit/io/winner_configs.hpp"

#include <cstring>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

// The rows_ key of a text and its set_at: the offset's 8 bytes first, so no two pairs share one.
std::string key_of(std::string_view text, std::int64_t set_at) {
  std::string key(sizeof set_at, '\0');
  std::memcpy(key.data(), &set_at, sizeof set_at);
  return key.append(text);
}

// Whether `config` run on `set` is entry e (without building its text: 10^6 winners, ~1 KB each).
bool is_entry(const WinnerConfigs::Entry& e, std::string_view config, std::string_view set,
              std::int64_t set_at) {
  if (e.set_at != set_at) return false;
  if (set_at < 0) return e.text == config;
  const auto at = static_cast<std::size_t>(set_at);
  return e.text.size() + set.size() == config.size() && config.compare(0, at, e.text, 0, at) == 0 &&
         config.substr(at + set.size()) == std::string_view(e.text).substr(at);
}

const data::Column& column_of(const data::MeasurementTable& t, const char* name,
                              data::ColumnType type, const std::string& where) {
  const data::Column* c = t.find(name);
  if (c == nullptr || c->type() != type) {
    throw DataError(where + " has no " + (type == data::ColumnType::string ? "text" : "integer") +
                    " column '" + name + "'");
  }
  return *c;
}

}  // namespace

std::int64_t set_offset(std::string_view config, std::string_view set) {
  if (set.empty()) return -1;
  constexpr std::string_view kLine = "set: \"";
  std::size_t line = std::string_view::npos;
  if (config.starts_with(kLine)) {
    line = 0;
  } else if (const std::size_t nl = config.find("\nset: \""); nl != std::string_view::npos) {
    line = nl + 1;
  }
  if (line != std::string_view::npos) {
    const std::size_t at = line + kLine.size();
    if (config.substr(at).starts_with(set) && config.substr(at + set.size()).starts_with('"'))
      return static_cast<std::int64_t>(at);
  }
  const std::size_t at = config.find(set);
  return at == std::string_view::npos ? -1 : static_cast<std::int64_t>(at);
}

WinnerConfigs::WinnerConfigs(const data::MeasurementTable& table, const std::string& where) {
  const auto& text = column_of(table, "config_yaml", data::ColumnType::string, where).str();
  const auto& at = column_of(table, "set_at", data::ColumnType::int64, where).i64();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (at[i] < -1 || at[i] > static_cast<std::int64_t>(text[i].size())) {
      throw DataError(where + " row " + std::to_string(i) + ": set_at " + std::to_string(at[i]) +
                      ", expected -1 .. " + std::to_string(text[i].size()) +
                      " (its text's length)");
    }
    entries_.push_back({text[i], at[i]});
  }
}

std::size_t WinnerConfigs::add(std::string_view config, std::string_view set) {
  const std::int64_t at = set_offset(config, set);
  if (last_ < entries_.size() && is_entry(entries_[last_], config, set, at)) return last_;
  if (at < 0) return find_or_add(std::string(config), at);
  const auto a = static_cast<std::size_t>(at);
  std::string text(config.substr(0, a));
  return find_or_add(text.append(config.substr(a + set.size())), at);
}

std::size_t WinnerConfigs::add(const Entry& e) { return find_or_add(e.text, e.set_at); }

std::size_t WinnerConfigs::find_or_add(std::string text, std::int64_t set_at) {
  const auto [it, added] = rows_.try_emplace(key_of(text, set_at), entries_.size());
  if (added) entries_.push_back({std::move(text), set_at});
  return last_ = it->second;
}

std::string WinnerConfigs::config(std::int64_t i, std::string_view set,
                                  const std::string& where) const {
  if (i < 0 || static_cast<std::size_t>(i) >= entries_.size()) {
    throw DataError(where + ": config_index " + std::to_string(i) + ", expected 0 .. " +
                    std::to_string(static_cast<std::int64_t>(entries_.size()) - 1) +
                    " (the rows of /configs)");
  }
  const Entry& e = entries_[static_cast<std::size_t>(i)];
  if (e.set_at < 0) return e.text;
  const auto at = static_cast<std::size_t>(e.set_at);
  std::string out = e.text.substr(0, at);
  return out.append(set).append(e.text, at);
}

data::MeasurementTable WinnerConfigs::table() const {
  std::vector<std::string> text;
  std::vector<std::int64_t> at;
  for (const Entry& e : entries_) {
    text.push_back(e.text);
    at.push_back(e.set_at);
  }
  data::MeasurementTable t;
  t.add_column(data::Column("config_yaml", std::move(text)));
  t.add_column(data::Column("set_at", std::move(at)));
  return t;
}

}  // namespace perfit::io
