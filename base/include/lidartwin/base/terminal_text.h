// No binary garbage on a terminal: what a damaged file puts into a message (a key, a name, a
// value) is shown with its control bytes escaped as \xNN, so it cannot move the cursor, change
// colours or ring the bell.
#pragma once

#include <string>

namespace lt {

// s with control bytes written as \xNN: C0 (other than tab and newline), DEL, C1, bidirectional
// formatting characters, bytes that
// are not well-formed UTF-8, a carriage return other than one that starts `s` (a progress bar
// redrawing its line) and ESC other than the "erase to end of line" ESC [ K that ends a bar's line.
std::string EscapeControlBytes(const std::string& s);

// Routes stderr, and stdout when it is a terminal, through EscapeControlBytes. Once, in main().
void EscapeControlBytesOnOutput();

}  // namespace lt
