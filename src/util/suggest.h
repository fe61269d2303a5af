// "Did you mean …?": the candidate closest to a mistyped word, by edit distance (insertions,
// deletions, substitutions and adjacent transpositions each cost 1), when it is close enough to
// be a typo: at most 1 edit for words of up to 4 characters, 2 up to 8, 3 beyond.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orrery {

size_t edit_distance(std::string_view a, std::string_view b);
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);
// " (did you mean \"x\"?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace orrery
