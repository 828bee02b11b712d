// Test harness (ours, not from ns3-rmcat): drives ns3-rmcat's own
// NadaController with a feedback log (src/cc/feedback-log.ts) and prints,
// after each feedback line, "<time us> <target bit/s>".
//
// As ns3-rmcat's RmcatSender does: every sent packet goes to
// processSendPacket (sequence numbers are 16 bits there), every report's
// received packets to processFeedbackBatch (its receiver reports only the
// packets it received; a report with none is not delivered), and the target
// is getBandwidth(). The controller starts from the log's initial rate
// (setCurrentBw: the reference's constructor takes its built-in 150 kbit/s).
//
// One departure, by default: processFeedbackBatch hands each packet to the
// virtual processFeedback, which in NadaController also updates the rate
// once 100 ms have passed, so in ns-3 an update often runs after the
// report's first packet, with the rest of the report not yet in the
// history; the batch's own update (after all its packets, once 50 ms have
// passed) then finds too little time passed. RFC 8698 updates per feedback
// message, and so does ours. ReportWiseNada below routes the per-packet call
// to the base class only, leaving the batch's update; --as-ns3 runs the
// unmodified NadaController instead.
//
// Build: g++ -std=c++17 -O2 nada-harness.cc nada-controller.cc sender-based-controller.cc
// Usage: nada-harness [--as-ns3] LOG
#include "nada-controller.h"
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

static void discardLog(const std::string&) {}

class ReportWiseNada : public rmcat::NadaController {
public:
    explicit ReportWiseNada(bool asNs3) : m_asNs3{asNs3} {}
    bool processFeedback(uint64_t nowUs, uint16_t sequence, uint64_t rxTimestampUs, uint8_t ecn) override {
        if (m_asNs3) return NadaController::processFeedback(nowUs, sequence, rxTimestampUs, ecn);
        return SenderBasedController::processFeedback(nowUs, sequence, rxTimestampUs, ecn);
    }
private:
    bool m_asNs3;
};

int main(int argc, char** argv) {
    const bool asNs3 = argc == 3 && std::string(argv[1]) == "--as-ns3";
    if (argc != 2 && !asNs3) {
        std::cerr << "usage: nada-harness [--as-ns3] LOG" << std::endl;
        return 2;
    }
    const char* path = argv[argc - 1];
    std::ifstream in(path);
    if (!in) {
        std::cerr << "nada-harness: cannot read " << path << std::endl;
        return 2;
    }
    ReportWiseNada nada{asNs3};
    nada.setLogCallback(discardLog);
    std::string line;
    size_t lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        char kind = 0;
        fields >> kind;
        if (kind == 'O') {
            double init = 0, min = 0, max = 0;
            fields >> init >> min >> max;
            nada.setInitBw(float(init));
            nada.setMinBw(float(min));
            nada.setMaxBw(float(max));
            nada.setCurrentBw(float(init));
        } else if (kind == 'S') {
            long long timeUs = 0, sequence = 0, size = 0;
            fields >> timeUs >> sequence >> size;
            nada.processSendPacket(uint64_t(timeUs), uint16_t(sequence), uint32_t(size));
        } else if (kind == 'F') {
            long long nowUs = 0, n = 0;
            fields >> nowUs >> n;
            std::vector<rmcat::SenderBasedController::FeedbackItem> batch;
            for (long long k = 0; k < n; ++k) {
                long long sequence = 0, arrivalUs = 0;
                fields >> sequence >> arrivalUs;
                if (arrivalUs >= 0) batch.push_back({uint16_t(sequence), uint64_t(arrivalUs), 0});
            }
            if (!batch.empty()) nada.processFeedbackBatch(uint64_t(nowUs), batch);
            std::printf("%lld %.3f\n", nowUs, double(nada.getBandwidth(uint64_t(nowUs))));
        } else {
            std::cerr << path << ":" << lineNo << ": not a feedback log line" << std::endl;
            return 2;
        }
        if (!fields) {
            std::cerr << path << ":" << lineNo << ": malformed line" << std::endl;
            return 2;
        }
    }
    return 0;
}
