// The two read queries of the history stores (records and per-(image, node, resource)
// statistics), shared by SqliteStore and PgStore: the columns each selects, in order, and the
// decoding of one row through an accessor with text(col), real(col) and integer(col).
#pragma once

#include <string>

#include "policies/kubcg/history.h"

namespace orrery::kubcg::rows {

// Every record, oldest first (the same SQL for both databases).
inline constexpr const char* kRecords =
    "SELECT i.name, n.name, r.resource, r.t_create_s, r.t_exec_s, r.start_s, r.end_s, "
    "r.concurrency, r.exit_status FROM records r JOIN images i ON i.id = r.image_id "
    "JOIN nodes n ON n.id = r.node_id ORDER BY r.id";

// The statistics' columns; each store appends its ORDER BY (byte order of image, node,
// resource: PostgreSQL needs COLLATE "C" for it, SQLite's default is already binary).
inline constexpr const char* kStatisticsSelect =
    "SELECT i.name, n.name, s.resource, s.count, s.sum_s, s.min_s, s.max_s FROM statistics s "
    "JOIN images i ON i.id = s.image_id JOIN nodes n ON n.id = s.node_id ";

template <class Row>
Record record(const Row& row) {
  Record r;
  r.image = row.text(0);
  r.node = row.text(1);
  parse_resource(row.text(2), &r.resource);
  r.t_create_s = row.real(3);
  r.t_exec_s = row.real(4);
  r.start_s = row.real(5);
  r.end_s = row.real(6);
  r.concurrency = static_cast<int>(row.integer(7));
  r.exit_status = static_cast<int>(row.integer(8));
  return r;
}

template <class Row>
Stat stat(const Row& row) {
  Stat s;
  s.image = row.text(0);
  s.node = row.text(1);
  parse_resource(row.text(2), &s.resource);
  s.count = row.integer(3);
  s.avg_s = s.count ? row.real(4) / static_cast<double>(s.count) : 0;
  s.min_s = row.real(5);
  s.max_s = row.real(6);
  return s;
}

}  // namespace orrery::kubcg::rows
