/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * qstat.c: the table behind qstat.h. The attribute numbers are the
 * kernel's uapi (enum after NETDEV_A_QSTATS_SCOPE in
 * include/uapi/linux/netdev.h, 6.18); they are ABI and never change.
 */
#include "qstat.h"

#include <stddef.h>

typedef struct QstatDesc {
        const char *name;
        int rx_attr, tx_attr; /* 0: not on that side */
        const char *help;
} QstatDesc;

static const QstatDesc qstat_table[_QSTAT_MAX] = {
        [QSTAT_PACKETS] = { "packets", 8, 10, "Packets the queue received (rx) or sent (tx)." },
        [QSTAT_BYTES] = { "bytes", 9, 11, "Bytes the queue received (rx) or sent (tx)." },
        [QSTAT_ALLOC_FAIL] = { "alloc_fail", 12, 0,
                               "Times the driver could not allocate a receive buffer (rx)." },
        [QSTAT_HW_DROPS] = { "hw_drops", 13, 24, "Packets the device dropped, for any reason." },
        [QSTAT_HW_DROP_OVERRUNS] = { "hw_drop_overruns", 14, 0,
                                     "Packets the device dropped for lack of buffers or descriptors (rx)." },
        [QSTAT_HW_DROP_ERRORS] = { "hw_drop_errors", 0, 25, "Packets the device dropped as invalid (tx)." },
        [QSTAT_HW_DROP_RATELIMITS] = { "hw_drop_ratelimits", 23, 32,
                                       "Packets the device dropped for exceeding its rate limit." },
        [QSTAT_CSUM_COMPLETE] = { "csum_complete", 15, 0, "Packets marked CHECKSUM_COMPLETE (rx)." },
        [QSTAT_CSUM_UNNECESSARY] = { "csum_unnecessary", 16, 0, "Packets marked CHECKSUM_UNNECESSARY (rx)." },
        [QSTAT_CSUM_NONE] = { "csum_none", 17, 26,
                              "Packets without a device checksum (rx) or needing none (tx)." },
        [QSTAT_CSUM_BAD] = { "csum_bad", 18, 0, "Packets with a bad checksum (rx)." },
        [QSTAT_NEEDS_CSUM] = { "needs_csum", 0, 27, "Packets the device checksummed (tx)." },
        [QSTAT_HW_GRO_PACKETS] = { "hw_gro_packets", 19, 0, "Packets the device coalesced (rx, hardware GRO)." },
        [QSTAT_HW_GRO_BYTES] = { "hw_gro_bytes", 20, 0, "Bytes of the packets the device coalesced (rx)." },
        [QSTAT_HW_GRO_WIRE_PACKETS] = { "hw_gro_wire_packets", 21, 0,
                                        "Wire segments that went into coalesced packets (rx)." },
        [QSTAT_HW_GRO_WIRE_BYTES] = { "hw_gro_wire_bytes", 22, 0,
                                      "Bytes of wire segments that went into coalesced packets (rx)." },
        [QSTAT_HW_GSO_PACKETS] = { "hw_gso_packets", 0, 28,
                                   "Packets the device segmented (tx, hardware GSO)." },
        [QSTAT_HW_GSO_BYTES] = { "hw_gso_bytes", 0, 29, "Bytes of packets the device segmented (tx)." },
        [QSTAT_HW_GSO_WIRE_PACKETS] = { "hw_gso_wire_packets", 0, 30,
                                        "Wire segments the device made from segmented packets (tx)." },
        [QSTAT_HW_GSO_WIRE_BYTES] = { "hw_gso_wire_bytes", 0, 31,
                                      "Bytes of wire segments the device made from segmented packets (tx)." },
        [QSTAT_STOP] = { "stop", 0, 33, "Times the driver stopped the queue because it was full (tx)." },
        [QSTAT_WAKE] = { "wake", 0, 34, "Times the driver restarted a stopped queue (tx)." },
};

const char *qstat_name(Qstat s) {
        return (unsigned)s < _QSTAT_MAX ? qstat_table[s].name : NULL;
}

const char *qstat_help(Qstat s) {
        return (unsigned)s < _QSTAT_MAX ? qstat_table[s].help : NULL;
}

int qstat_attr(Qstat s, QueueKind kind) {
        if ((unsigned)s >= _QSTAT_MAX)
                return 0;
        return kind == QUEUE_RX ? qstat_table[s].rx_attr : kind == QUEUE_TX ? qstat_table[s].tx_attr : 0;
}
