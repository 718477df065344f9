// viewer/: the page around the bundle (issue 13): base64 against RFC 4648 sec. 10, placeholders
// filled, the bundle inlined so that it cannot end its <script> element early.
#include <gtest/gtest.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "lidartwin/viewer/report_viewers.h"
#include "lidartwin/viewer/viewer_page.h"
#include "lidartwin/viewer/viewer_server.h"

namespace lt::viewer {
namespace {

TEST(Base64, Rfc4648TestVectors) {
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg==");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ(Base64("foo"), "Zm9v");
  EXPECT_EQ(Base64("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64(std::string("\xff\xfe\x00", 3)), "//4A");
}

TEST(ViewerPage, ExportedPageInlinesDataAndBundleAndEscapesTheTitle) {
  const std::string page = ExportedPage("a <b> & c", "foobar");
  EXPECT_NE(page.find("<title>a &lt;b&gt; &amp; c</title>"), std::string::npos);
  EXPECT_NE(page.find("<script id=\"lidartwin-data\" type=\"application/octet-stream\">"
                      "Zm9vYmFy</script>"),
            std::string::npos);
  EXPECT_EQ(page.find("<!--LTV_"), std::string::npos);         // every placeholder filled
  EXPECT_NE(page.find("LidartwinViewer"), std::string::npos);  // the bundle's global
  // Exactly the script elements the page means.
  size_t ends = 0;
  for (size_t at = page.find("</script"); at != std::string::npos;
       at = page.find("</script", at + 1))
    ++ends;
  EXPECT_EQ(ends, 3u);  // the incomplete-page guard, the bundle, the data
}

TEST(ViewerPage, ServedPageNamesTheDocumentUrlAndEmbeddedViewersAreDistinct) {
  const std::string page = ServedPage("t", "document.bin");
  EXPECT_NE(page.find("<meta name=\"lidartwin-document-url\" content=\"document.bin\">"),
            std::string::npos);
  const std::string a = EmbeddedViewer("run-1", "x", 500), b = EmbeddedViewer("run-2", "y", 500);
  EXPECT_NE(a.find("id=\"run-1-data\""), std::string::npos);
  EXPECT_NE(b.find("getElementById(\"run-2\")"), std::string::npos);
  EXPECT_NE(a.find("height:500px"), std::string::npos);
}

TEST(ReportViewers, WorstFramePairsByAgreementTiesByPosition) {
  compare::ComparisonMetrics m;
  // {pair, real, sim, both}: agreements 5/15, 9/11, 2/14 and 5/15.
  m.per_frame = {{0, 10, 10, 5}, {1, 10, 10, 9}, {2, 10, 6, 2}, {3, 10, 10, 5}};
  EXPECT_EQ(WorstFramePairs(m, 1), (std::vector<size_t>{2}));
  EXPECT_EQ(WorstFramePairs(m, 3), (std::vector<size_t>{2, 0, 3}));  // the tie: earlier first
  EXPECT_EQ(WorstFramePairs(m, 10).size(), 4u);                      // no more than there are
  EXPECT_TRUE(WorstFramePairs(compare::ComparisonMetrics{}, 3).empty());
}

// Found by the hostile review: httplib's SO_REUSEPORT let a second server share the port.
TEST(ViewerServer, APortInUseIsRefused) {
  ViewerServer first(
      "a", [] { return Expected<std::string>(std::string("x")); }, [] { return false; });
  auto port = first.Bind("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.message();
  ViewerServer second(
      "b", [] { return Expected<std::string>(std::string("y")); }, [] { return false; });
  auto again = second.Bind("127.0.0.1", *port);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.message().find("in use"), std::string::npos) << again.message();
}

// Issue 36: the server answered any Host (a DNS-rebinding page could read the recordings) and
// answered unsatisfiable ranges with a wrapped Content-Length.
TEST(ViewerServer, AnswersOnlyLocalNamesAndRefusesUnsatisfiableRanges) {
  ViewerServer server(
      "t", [] { return Expected<std::string>(std::string(1000, 'd')); }, [] { return false; });
  auto port = server.Bind("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.message();
  std::thread serving([&] { (void)server.Run(); });
  httplib::Client client("127.0.0.1", *port);
  const auto get = [&](const std::string& path, httplib::Headers headers) {
    auto r = client.Get(path.c_str(), headers);
    return r ? r->status : -1;
  };
  for (int tries = 0; tries < 200 && get("/", {}) != 200; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(get("/document.bin", {{"Host", "localhost:" + std::to_string(*port)}}), 200);
  EXPECT_EQ(get("/document.bin", {{"Host", "127.0.0.1"}}), 200);
  EXPECT_EQ(get("/document.bin", {{"Host", "[::1]:80"}}), 200);
  EXPECT_EQ(get("/document.bin", {{"Host", "attacker.example:" + std::to_string(*port)}}), 421);
  EXPECT_EQ(get("/", {{"Host", "rebound.example"}}), 421);
  EXPECT_EQ(get("/document.bin", {{"Range", "bytes=0-9"}}), 206);
  auto beyond = client.Get("/document.bin", {{"Range", "bytes=1000000000-"}});
  ASSERT_TRUE(beyond);
  EXPECT_EQ(beyond->status, 416);
  EXPECT_EQ(beyond->get_header_value("Content-Range"), "bytes */1000");
  EXPECT_EQ(get("/document.bin", {{"Range", "bytes=9-3"}}), 416);
  EXPECT_EQ(get("/", {{"Range", "bytes=99999999-"}}), 416);
  server.Stop();
  serving.join();
}

// Issue 36: seven connections sending a header line every 2 s made the server unresponsive.
TEST(ViewerServer, SlowClientsDoNotStopTheOthers) {
  ViewerServer server(
      "t", [] { return Expected<std::string>(std::string(100, 'd')); }, [] { return false; });
  auto port = server.Bind("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.message();
  std::thread serving([&] { (void)server.Run(); });
  httplib::Client probe("127.0.0.1", *port);
  for (int tries = 0; tries < 200 && !probe.Get("/"); ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::vector<int> slow;
  for (int k = 0; k < 12; ++k) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_port = htons(static_cast<uint16_t>(*port));
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&at), sizeof at), 0);
    const std::string start = "GET / HTTP/1.1\r\nHost: localhost\r\n";
    ASSERT_GT(::send(fd, start.data(), start.size(), MSG_NOSIGNAL), 0);
    slow.push_back(fd);
  }
  std::atomic<bool> done{false};
  std::thread dribble([&] {  // a header line every 2 s on each slow connection
    for (int round = 0; round < 3 && !done; ++round) {
      for (int t = 0; t < 20 && !done; ++t)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      for (int fd : slow)
        (void)::send(fd, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL);
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  httplib::Client client("127.0.0.1", *port);
  client.set_read_timeout(3, 0);
  const auto start = std::chrono::steady_clock::now();
  auto r = client.Get("/document.bin");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  done = true;
  dribble.join();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_LT(seconds, 1.5);
  for (int fd : slow)
    ::close(fd);
  server.Stop();
  serving.join();
}

}  // namespace
}  // namespace lt::viewer
