#include "perfit/island/island_snapshot.hpp"

#include <cstring>

#include "perfit/core/error.hpp"

namespace perfit::island {

namespace {

constexpr std::uint64_t kMagic = 0x7065726669740001ULL;  // "perfit" + layout version 1

std::uint64_t bits(double d) {
  std::uint64_t u = 0;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
double real(std::uint64_t u) {
  double d = 0;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

class Reader {
 public:
  explicit Reader(const std::vector<std::uint64_t>& w) : w_(w) {}
  std::uint64_t word() {
    if (at_ >= w_.size()) throw DataError("checkpoint island state is truncated");
    return w_[at_++];
  }
  std::size_t count() { return static_cast<std::size_t>(word()); }
  double number() { return real(word()); }
  void doubles(double* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = number();
  }
  bool done() const { return at_ == w_.size(); }

 private:
  const std::vector<std::uint64_t>& w_;
  std::size_t at_ = 0;
};

}  // namespace

std::vector<std::uint64_t> to_words(const IslandSnapshot& snap) {
  const de::DeState& s = snap.state;
  std::vector<std::uint64_t> w = {kMagic,
                                  static_cast<std::uint64_t>(s.pop.rows()),
                                  static_cast<std::uint64_t>(s.pop.cols()),
                                  static_cast<std::uint64_t>(s.archive.cols()),
                                  s.archive_used,
                                  s.mem_f.size(),
                                  s.mem_pos,
                                  s.np_init,
                                  s.generation,
                                  s.evaluations,
                                  s.history.size(),
                                  snap.epoch_end_generation,
                                  bits(snap.seconds)};
  for (const auto r : s.rng) w.push_back(r);
  const auto put = [&](const double* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) w.push_back(bits(p[i]));
  };
  put(s.pop.data(), static_cast<std::size_t>(s.pop.size()));
  put(s.cost.data(), static_cast<std::size_t>(s.cost.size()));
  put(s.archive.data(), static_cast<std::size_t>(s.archive.size()));
  put(s.mem_f.data(), s.mem_f.size());
  put(s.mem_cr.data(), s.mem_cr.size());
  put(s.history.data(), s.history.size());
  return w;
}

IslandSnapshot from_words(const std::vector<std::uint64_t>& w, std::size_t dim) {
  Reader r(w);
  if (r.word() != kMagic) throw DataError("checkpoint island state has an unknown layout");
  IslandSnapshot snap;
  de::DeState& s = snap.state;
  const std::size_t d = r.count(), np = r.count(), acols = r.count();
  if (d != dim) {
    throw DataError("checkpoint island state searches " + std::to_string(d) + " params, this run " +
                    std::to_string(dim) +
                    " (a checkpoint of a search over every param, written with "
                    "separable: off or before variable projection, resumes with --separable off)");
  }
  s.archive_used = r.count();
  const std::size_t mem = r.count();
  s.mem_pos = r.count();
  s.np_init = r.count();
  s.generation = r.count();
  s.evaluations = r.count();
  const std::size_t hist = r.count();
  snap.epoch_end_generation = r.count();
  snap.seconds = r.number();
  for (auto& x : s.rng) x = r.word();
  s.pop.resize(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(np));
  s.cost.resize(static_cast<Eigen::Index>(np));
  s.archive.resize(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(acols));
  s.mem_f.resize(mem);
  s.mem_cr.resize(mem);
  s.history.resize(hist);
  r.doubles(s.pop.data(), static_cast<std::size_t>(s.pop.size()));
  r.doubles(s.cost.data(), np);
  r.doubles(s.archive.data(), static_cast<std::size_t>(s.archive.size()));
  r.doubles(s.mem_f.data(), mem);
  r.doubles(s.mem_cr.data(), mem);
  r.doubles(s.history.data(), hist);
  if (!r.done()) throw DataError("checkpoint island state has trailing data");
  return snap;
}

}  // namespace perfit::island
