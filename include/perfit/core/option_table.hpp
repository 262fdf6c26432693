// Options declared once. Each entry has a key ("de.max_generations"), a doc line, what values
// it accepts, a parser that checks them and a formatter whose text parses back to the same
// value. The CLI flag, the YAML key, --help, the JSON field and the saved "config as run" are
// all derived from the table, so they cannot drift apart.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfit/core/error.hpp"

namespace perfit {

// How a value is written in YAML and JSON. `rows`: a list of rows, each a list of scalars or of
// key=value pairs; its text form is "a,b;c" or "k=v,k=v;k=v" (a CLI flag takes that text).
enum class OptionKind { text, number, boolean, rows };

template <class S>
struct Option {
  std::string key;   // YAML path, sections joined by '.'
  std::string flag;  // CLI long name without "--"; empty: no flag
  std::string doc;
  std::string expected;  // "a whole number in [1, 1000000000]"
  OptionKind kind = OptionKind::text;
  // Throws: ConfigError "found 'X', expected ..." (the caller names the key or flag).
  std::function<void(S&, const std::string&)> parse;
  std::function<std::string(const S&)> format;
  // Command-line only (a config file has no positions and no required keys): a positional
  // argument instead of --flag, one that must be given, one that may be given many times
  // (each value goes through `parse`, which appends).
  bool positional = false;
  bool required = false;
  bool repeatable = false;
  // Fault injection or test pacing (core/test_hooks.hpp): accepted as a flag and a key, never
  // shown in --help or a shipped example.
  bool test_hook = false;
};

// `o` under another flag than its key's (e.g. islands.interval as --migration-interval).
template <class S>
Option<S> with_flag(Option<S> o, std::string flag) {
  o.flag = std::move(flag);
  return o;
}

// `o` as a test hook.
template <class S>
Option<S> as_test_hook(Option<S> o) {
  o.test_hook = true;
  return o;
}

template <class S>
using OptionTable = std::vector<Option<S>>;

// ---- value parsing shared by every table (Throws: ConfigError "found 'X', expected E") ----
double parse_real(const std::string& text, double lo, double hi, const std::string& expected);
std::uint64_t parse_whole(const std::string& text, std::uint64_t lo, std::uint64_t hi,
                          const std::string& expected);
bool parse_bool(const std::string& text);
// Shortest text that parses back to exactly v ("-inf", "inf" for infinities).
std::string format_real(double v);
// "[lo, hi]" with inf shown as such.
std::string range_text(double lo, double hi);
// The flag name derived from a key: the last section, '_' -> '-'.
std::string flag_of(const std::string& key);

// ---- builders: Get is a member pointer (&S::x) or a callable S& -> T& (a nested member) ----
template <class S, class Get>
Option<S> real_option(std::string key, Get get, double lo, double hi, std::string doc) {
  const std::string expected = "a number in " + range_text(lo, hi);
  return {
      key,
      flag_of(key),
      std::move(doc),
      expected,
      OptionKind::number,
      [=](S& s, const std::string& t) { std::invoke(get, s) = parse_real(t, lo, hi, expected); },
      [=](const S& s) { return format_real(std::invoke(get, const_cast<S&>(s))); }};
}

template <class S, class Get>
Option<S> whole_option(std::string key, Get get, std::uint64_t lo, std::uint64_t hi,
                       std::string doc) {
  const std::string expected =
      "a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return {key,
          flag_of(key),
          std::move(doc),
          expected,
          OptionKind::number,
          [=](S& s, const std::string& t) {
            using T = std::remove_reference_t<decltype(std::invoke(get, s))>;
            std::invoke(get, s) = static_cast<T>(parse_whole(t, lo, hi, expected));
          },
          [=](const S& s) { return std::to_string(std::invoke(get, const_cast<S&>(s))); }};
}

// A whole number or -1 for "none" (e.g. an island index).
template <class S, class Get>
Option<S> index_option(std::string key, Get get, std::int64_t hi, std::string doc) {
  const std::string expected = "-1 (none) or a whole number in [0, " + std::to_string(hi) + "]";
  return {key,
          flag_of(key),
          std::move(doc),
          expected,
          OptionKind::number,
          [=](S& s, const std::string& t) {
            using T = std::remove_reference_t<decltype(std::invoke(get, s))>;
            std::invoke(get, s) =
                t == "-1"
                    ? T(-1)
                    : static_cast<T>(parse_whole(t, 0, static_cast<std::uint64_t>(hi), expected));
          },
          [=](const S& s) { return std::to_string(std::invoke(get, const_cast<S&>(s))); }};
}

template <class S, class Get>
Option<S> bool_option(std::string key, Get get, std::string doc) {
  return {key,
          flag_of(key),
          std::move(doc),
          "true or false",
          OptionKind::boolean,
          [=](S& s, const std::string& t) { std::invoke(get, s) = parse_bool(t); },
          [=](const S& s) {
            return std::string(std::invoke(get, const_cast<S&>(s)) ? "true" : "false");
          }};
}

template <class S, class Get>
Option<S> text_option(std::string key, Get get, std::string what, std::string doc) {
  return {key,
          flag_of(key),
          std::move(doc),
          std::move(what),
          OptionKind::text,
          [=](S& s, const std::string& t) { std::invoke(get, s) = t; },
          [=](const S& s) { return std::string(std::invoke(get, const_cast<S&>(s))); }};
}

// Parse and ToString are the enum's own parse_x / to_string (one name list, kept there).
template <class S, class Get, class E, class Parse, class ToString>
Option<S> enum_option(std::string key, Get get, std::vector<E> values, Parse parse,
                      ToString to_text, std::string doc) {
  std::string expected = "one of ";
  for (std::size_t i = 0; i < values.size(); ++i) {
    expected += (i ? ", " : "") + std::string(to_text(values[i]));
  }
  return {key,
          flag_of(key),
          std::move(doc),
          expected,
          OptionKind::text,
          [=](S& s, const std::string& t) { std::invoke(get, s) = parse(t); },
          [=](const S& s) { return std::string(to_text(std::invoke(get, const_cast<S&>(s)))); }};
}

// Text that must be one of `values` (a choice kept as text by its command).
template <class S, class Get>
Option<S> choice_option(std::string key, Get get, std::vector<std::string> values,
                        std::string doc) {
  std::string expected = "one of ";
  for (std::size_t i = 0; i < values.size(); ++i) expected += (i ? ", " : "") + values[i];
  return {key,
          flag_of(key),
          std::move(doc),
          expected,
          OptionKind::text,
          [=](S& s, const std::string& t) {
            if (std::find(values.begin(), values.end(), t) == values.end()) {
              throw ConfigError("found '" + t + "', expected " + expected);
            }
            std::invoke(get, s) = t;
          },
          [=](const S& s) { return std::string(std::invoke(get, const_cast<S&>(s))); }};
}

// A list of text values: each occurrence of the flag adds one, or with `comma_separated`
// one per comma-separated field (then a value cannot hold a comma).
template <class S, class Get>
Option<S> list_option(std::string key, Get get, std::string what, std::string doc,
                      bool comma_separated = false) {
  Option<S> o{key,
              flag_of(key),
              std::move(doc),
              std::move(what),
              OptionKind::text,
              [=](S& s, const std::string& t) {
                if (!comma_separated) {
                  std::invoke(get, s).push_back(t);
                  return;
                }
                for (std::size_t from = 0; from <= t.size();) {
                  const std::size_t comma = std::min(t.find(',', from), t.size());
                  if (comma > from) std::invoke(get, s).push_back(t.substr(from, comma - from));
                  from = comma + 1;
                }
              },
              [=](const S& s) {
                std::string out;
                for (const auto& v : std::invoke(get, const_cast<S&>(s)))
                  out += (out.empty() ? "" : ",") + v;
                return out;
              }};
  o.repeatable = true;
  return o;
}

// Command-line modifiers of an option built above.
template <class S>
Option<S> required(Option<S> o) {
  o.required = true;
  return o;
}
template <class S>
Option<S> positional(Option<S> o) {
  o.positional = true;
  return o;
}

// The options of a nested struct as options of S, keys under `prefix` ("de.").
template <class S, class Inner, class Get>
void add_nested(OptionTable<S>& out, const OptionTable<Inner>& inner, const std::string& prefix,
                Get get) {
  for (const Option<Inner>& o : inner) {
    Option<S> n{prefix + o.key,
                o.flag,
                o.doc,
                o.expected,
                o.kind,
                [p = o.parse, get](S& s, const std::string& t) { p(get(s), t); },
                [f = o.format, get](const S& s) { return f(get(const_cast<S&>(s))); }};
    n.positional = o.positional;
    n.required = o.required;
    n.repeatable = o.repeatable;
    n.test_hook = o.test_hook;
    out.push_back(std::move(n));
  }
}

// One option's current value, for writers of YAML and JSON that need no table type.
struct OptionValue {
  std::string_view key;  // the table's own: a result's run configuration formats ~60 of them
  OptionKind kind;
  std::string text;
};

template <class S>
std::vector<OptionValue> option_values(const OptionTable<S>& table, const S& s) {
  std::vector<OptionValue> out;
  out.reserve(table.size());
  for (const auto& o : table) out.push_back({o.key, o.kind, o.format(s)});
  return out;
}

// Keys of the table in the same section as `key` ("de.foo" -> every "de.*"), for messages.
std::string keys_in_section(const std::vector<std::string>& keys, const std::string& key);

// The option with this key, or nullptr.
template <class S>
const Option<S>* find_option(const OptionTable<S>& table, const std::string& key) {
  for (const auto& o : table) {
    if (o.key == key) return &o;
  }
  return nullptr;
}

// Sets one option from text. `where` names the source, e.g. "config 'c.yaml'" or "--F".
// Throws: ConfigError "<where>: unknown key 'k'; allowed here: ..." or
// "<where> key 'k': found 'x', expected ...".
template <class S>
void apply_option(const OptionTable<S>& table, S& s, const std::string& key,
                  const std::string& text, const std::string& where);

}  // namespace perfit

template <class S>
void perfit::apply_option(const OptionTable<S>& table, S& s, const std::string& key,
                          const std::string& text, const std::string& where) {
  const Option<S>* o = find_option(table, key);
  if (!o) {
    std::vector<std::string> keys;
    for (const auto& x : table) keys.push_back(x.key);
    throw ConfigError(where + ": unknown key '" + key +
                      "'; allowed here: " + keys_in_section(keys, key));
  }
  try {
    o->parse(s, text);
  } catch (const ConfigError& e) {
    throw ConfigError(where + " key '" + key + "': " + e.what());
  }
}
