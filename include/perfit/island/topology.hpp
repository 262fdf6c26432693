// Who sends migrants to whom. Pure (no MPI): a topology is, per island, the list of islands it
// sends to and the list it receives from. The island model builds an MPI distributed-graph
// communicator from it. Random k-regular topologies are re-drawn every epoch from the seed, so
// every rank draws the same graph without communicating.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perfit::island {

enum class TopologyKind { ring, ring_bi, torus, full, random_regular, custom };
TopologyKind parse_topology(const std::string& s);  // Throws: ConfigError listing the choices
const char* to_string(TopologyKind k);

struct Topology {
  std::vector<std::vector<int>> out;  // out[i]: islands i sends to (sorted)
  std::vector<std::vector<int>> in;   // in[i]: islands that send to i (sorted)
  // Longest shortest path (hops) from any island to any other; -1 if not strongly connected.
  int diameter() const;
};

struct TopologySpec {
  TopologyKind kind = TopologyKind::ring;
  int degree = 2;                           // random_regular: out-degree k (at most n-1)
  std::vector<std::vector<int>> adjacency;  // custom: out-neighbours of each island
};

// Throws: ConfigError for a custom adjacency of the wrong size or with bad indices, or a
// degree < 1 for random_regular.
Topology make_topology(const TopologySpec& spec, int n, std::uint64_t seed, std::uint64_t epoch);

}  // namespace perfit::island
