// Test harness (ours, not from EricssonResearch/scream): drives the
// reference ScreamTx with a SCReAM call log (src/cc/scream/scream-log.ts)
// and prints the sender's state after every call:
//   <kind> <time us> <result> <targetBitrate> <targetRateScale> <cwnd> <bytesInFlight>
//
// One stream (SSRC 10, priority 1) registered with the log's rates and the
// reference's defaults, as its own simulator (scream_01.cpp) does; the RTP
// queue is a shim showing the log's Q lines (cleared when ScreamTx clears
// it). ScreamTx keeps its state private: this file alone reads it, by
// compiling the header with private made public (same layout).
//
// Build: g++ -std=c++17 -O1 scream-harness.cc ScreamTx.cpp
// Usage: scream-harness LOG
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include "RtpQueue.h"
#define private public
#include "ScreamTx.h"
#undef private

class ShimQueue : public RtpQueueIface {
public:
    int bytes = 0, packets = 0, next = -1, lastFrame = 0;
    long long headProducedUs = -1;
    void clear() override { bytes = 0; packets = 0; next = -1; headProducedUs = -1; }
    int sizeOfNextRtp() override { return next; }
    int seqNrOfNextRtp() override { return -1; }
    int bytesInQueue() override { return bytes; }
    int sizeOfQueue() override { return packets; }
    float getDelay(float currTs) override {
        if (headProducedUs < 0) return 0;
        return currTs - float(headProducedUs) * 1e-6f;
    }
    int getSizeOfLastFrame() override { return lastFrame; }
};

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: scream-harness LOG" << std::endl;
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::cerr << "scream-harness: cannot read " << argv[1] << std::endl;
        return 2;
    }
    const uint32_t ssrc = 10;
    ShimQueue queue;
    ScreamTx tx;
    ScreamTx::Stream* stream = nullptr;
    std::string line;
    size_t lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream f(line);
        char kind = 0;
        f >> kind;
        double result = 0;
        if (kind == 'O') {
            double minBr = 0, startBr = 0, maxBr = 0;
            f >> minBr >> startBr >> maxBr;
            tx.registerNewStream(&queue, ssrc, 1.0f, float(minBr), float(startBr), float(maxBr));
            stream = tx.getStream(ssrc);
            continue;
        } else if (kind == 'Q') {
            f >> queue.bytes >> queue.packets >> queue.next >> queue.headProducedUs >> queue.lastFrame;
            continue;
        } else if (stream == nullptr) {
            std::cerr << argv[1] << ":" << lineNo << ": a call before the O line" << std::endl;
            return 2;
        }
        long long nowUs = 0;
        f >> nowUs;
        if (kind == 'M') {
            int bytes = 0;
            f >> bytes;
            tx.newMediaFrame(uint64_t(nowUs), ssrc, bytes);
        } else if (kind == 'K') {
            uint32_t s = ssrc;
            result = tx.isOkToTransmit(uint64_t(nowUs), s);
        } else if (kind == 'T') {
            int size = 0, seq = 0;
            f >> size >> seq;
            result = tx.addTransmitted(uint64_t(nowUs), ssrc, size, uint16_t(seq));
        } else if (kind == 'A') {
            unsigned long long timestamp = 0, highest = 0, hi = 0, lo = 0;
            f >> timestamp >> highest >> hi >> lo;
            tx.incomingFeedback(uint64_t(nowUs), ssrc, uint32_t(timestamp), uint16_t(highest), (uint64_t(hi) << 32) | uint64_t(lo), 0);
        } else {
            std::cerr << argv[1] << ":" << lineNo << ": not a SCReAM log line" << std::endl;
            return 2;
        }
        if (!f) {
            std::cerr << argv[1] << ":" << lineNo << ": malformed line" << std::endl;
            return 2;
        }
        std::printf("%c %lld %.9g %.9g %.9g %d %d\n", kind, nowUs, result, double(stream->targetBitrate), double(stream->targetRateScale), tx.cwnd, tx.bytesInFlight);
    }
    return 0;
}
