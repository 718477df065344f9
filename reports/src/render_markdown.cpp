// Markdown: GitHub-flavoured tables, short enough for a CI job summary.
#include <fmt/core.h>

#include "lidartwin/reports/report.h"
#include "report_tables.h"

namespace lt::reports {
namespace {

std::string Cell(const std::string& s) {
  std::string out;
  for (char c : s)
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string Markdown(const Table& t, int level) {
  if (t.rows.empty()) return "";
  std::string out = fmt::format("{} {}\n\n|", std::string(level, '#'), t.title);
  for (const auto& h : t.header)
    out += " " + Cell(h) + " |";
  out += "\n|";
  const std::vector<bool> text = TextColumns(t);
  for (size_t i = 0; i < t.header.size(); ++i)
    out += text[i] ? " --- |" : " ---: |";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& c : row)
      out += " " + Cell(c) + " |";
    out += "\n";
  }
  return out + "\n";
}

}  // namespace

std::string RenderMarkdown(const Report& r) {
  std::string out = "# lidartwin fidelity report\n\n";
  if (const std::string v = GateVerdict(r); !v.empty()) out += "**" + v + "**\n\n";
  out += Markdown(RunsTable(r), 2);
  out += Markdown(SummaryTable(r), 2);
  for (const auto& m : r.runs) {
    out += fmt::format("## {}\n\nAssociation: {} ({}).\n\n", m.label, m.association,
                       m.association_reason);
    out += Markdown(DistanceTable(m), 3);
    out += Markdown(MaterialTable(m), 3);
    out += Markdown(TargetTable(m), 3);
  }
  return out;
}

}  // namespace lt::reports
