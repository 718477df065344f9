// What reaches a terminal of a message's text: well-formed UTF-8 passes, every other byte that
// could move the cursor, reorder the line or be taken for part of a sequence shows as \xNN.
#include "lidartwin/base/terminal_text.h"

#include <gtest/gtest.h>

namespace lt {
namespace {

TEST(TerminalText, WellFormedUtf8PassesAndControlsAreEscaped) {
  EXPECT_EQ(EscapeControlBytes("plain\ttext\n"), "plain\ttext\n");
  EXPECT_EQ(EscapeControlBytes("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x97"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x97");                 // 2, 3 and 4 bytes
  EXPECT_EQ(EscapeControlBytes("\xf4\x8f\xbf\xbf"), "\xf4\x8f\xbf\xbf");  // U+10FFFF, the last
  EXPECT_EQ(EscapeControlBytes("a\x1b[31mb\x07"), "a\\x1b[31mb\\x07");
  EXPECT_EQ(EscapeControlBytes("\xc2\x9b"), "\\xc2\\x9b");           // C1 CSI
  EXPECT_EQ(EscapeControlBytes("\xe2\x80\xae"), "\\xe2\\x80\\xae");  // right-to-left override
}

// Byte sequences that are no UTF-8 (found by a hostile pass over fire-time files): each byte
// escaped, none passed raw.
TEST(TerminalText, MalformedSequencesAreEscapedByteForByte) {
  EXPECT_EQ(EscapeControlBytes("\xfb\x80\x90"), "\\xfb\\x80\\x90");           // lead F5..FF
  EXPECT_EQ(EscapeControlBytes("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(EscapeControlBytes("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(EscapeControlBytes("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong '/'
  EXPECT_EQ(EscapeControlBytes("\xf0\x80\x80\xaf"), "\\xf0\\x80\\x80\\xaf");  // overlong '/'
  EXPECT_EQ(EscapeControlBytes("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(EscapeControlBytes("\xe2\x82"), "\\xe2\\x82");                    // cut short
}

}  // namespace
}  // namespace lt
