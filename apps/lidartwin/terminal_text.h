// No binary garbage on a terminal: what a damaged file puts into a message (a key, a name, a
// value) is shown with its control bytes escaped as \xNN, so it cannot move the cursor, change
// colours or ring the bell.
#pragma once

#include <string>

namespace lt::cli {

// s with C0 control bytes (other than tab, newline, carriage return), DEL, and ESC (other than
// the "erase to end of line" ESC [ K our progress bar uses) written as \xNN.
std::string EscapeControlBytes(const std::string& s);

// Routes stderr, and stdout when it is a terminal, through EscapeControlBytes. Once, in main().
void EscapeControlBytesOnOutput();

}  // namespace lt::cli
