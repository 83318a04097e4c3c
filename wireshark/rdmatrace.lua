-- rdmatrace.lua: a Wireshark post-dissector that shows what rdmatrace knows
-- about each RoCEv2 packet as an "rdmatrace" tree with filterable fields and
-- expert-info entries.
--
-- Where it gets its knowledge:
--   * the packet comments `rdmatrace correlate` writes into a run's
--     annotated.pcapng (first comment line "rdmatrace: key=value ...", see
--     docs/wireshark.md for the keys): host, process, work request, packet
--     index, retransmission number and cause, ICRC status, latency, findings;
--   * the packet itself, for what Wireshark 4.0 does not spell out: an AETH
--     RNR NAK's wait (timer code 0 is 655.36 ms, not zero) and a NAK's meaning.
-- Without annotations the plugin still loads and adds the wire-level fields.
--
-- Load it with `tshark -X lua_script:rdmatrace.lua`, `rdmatrace tshark`,
-- `rdmatrace wireshark`, or by copying it into Wireshark's personal plugin
-- folder.

local proto = Proto("rdmatrace", "rdmatrace annotations")

local F = {
	host = ProtoField.string("rdmatrace.host", "Host"),
	pid = ProtoField.uint32("rdmatrace.pid", "Process id"),
	prog = ProtoField.string("rdmatrace.prog", "Program"),
	qp = ProtoField.uint32("rdmatrace.qp", "Sender QP", base.HEX),
	peer_qp = ProtoField.uint32("rdmatrace.peer_qp", "Peer QP", base.HEX),
	wr_id = ProtoField.uint64("rdmatrace.wr_id", "Work request id"),
	wr_opcode = ProtoField.string("rdmatrace.wr_opcode", "Work request opcode"),
	wr_len = ProtoField.uint32("rdmatrace.wr_len", "Work request length"),
	pkt_index = ProtoField.uint32("rdmatrace.pkt_index", "Packet index in message"),
	pkt_count = ProtoField.uint32("rdmatrace.pkt_count", "Packets in message"),
	retransmission = ProtoField.bool("rdmatrace.retransmission", "Retransmission"),
	retrans = ProtoField.uint32("rdmatrace.retrans", "Retransmission number"),
	retrans_cause = ProtoField.string("rdmatrace.retrans_cause", "Retransmission cause"),
	ack = ProtoField.string("rdmatrace.ack", "Acknowledgement kind"),
	rnr_nak = ProtoField.bool("rdmatrace.rnr_nak", "RNR NAK"),
	rnr_wait_ms = ProtoField.double("rdmatrace.rnr_wait_ms", "RNR NAK wait (ms)"),
	nak = ProtoField.string("rdmatrace.nak", "NAK meaning"),
	icrc = ProtoField.string("rdmatrace.icrc", "ICRC status"),
	icrc_bad = ProtoField.bool("rdmatrace.icrc_bad", "ICRC bad"),
	ack_latency_us = ProtoField.double("rdmatrace.ack_latency_us", "Latency to ACK (us)"),
	ack_frame = ProtoField.uint32("rdmatrace.ack_frame", "Covered by the ACK in frame"),
	completion_frame = ProtoField.uint32("rdmatrace.completion_frame", "Related frame"),
	finding = ProtoField.string("rdmatrace.finding", "Diagnosis finding"),
	dup = ProtoField.bool("rdmatrace.dup", "Duplicate at the receiver"),
	out_of_order = ProtoField.bool("rdmatrace.out_of_order", "Out of order at the receiver"),
	copy_of = ProtoField.uint32("rdmatrace.copy_of", "Copy of the packet in frame (captured on another interface)"),
	note = ProtoField.string("rdmatrace.note", "Note"),
	annotated = ProtoField.bool("rdmatrace.annotated", "Annotated by rdmatrace correlate"),
}
local field_list = {}
for _, f in pairs(F) do field_list[#field_list + 1] = f end
proto.fields = field_list

local E = {
	retrans = ProtoExpert.new("rdmatrace.expert.retransmission", "Retransmission",
		expert.group.SEQUENCE, expert.severity.WARN),
	rnr = ProtoExpert.new("rdmatrace.expert.rnr_nak", "RNR NAK: the sender must wait",
		expert.group.SEQUENCE, expert.severity.WARN),
	nak = ProtoExpert.new("rdmatrace.expert.nak", "NAK error",
		expert.group.RESPONSE_CODE, expert.severity.ERROR),
	nak_seq = ProtoExpert.new("rdmatrace.expert.nak_seq", "NAK PSN sequence error: the requester goes back",
		expert.group.SEQUENCE, expert.severity.WARN),
	icrc = ProtoExpert.new("rdmatrace.expert.bad_icrc", "Bad ICRC",
		expert.group.CHECKSUM, expert.severity.ERROR),
	finding = ProtoExpert.new("rdmatrace.expert.finding", "rdmatrace diagnosis finding",
		expert.group.COMMENTS_GROUP, expert.severity.NOTE),
}
proto.experts = { E.retrans, E.rnr, E.nak, E.nak_seq, E.icrc, E.finding }

local comment_field = Field.new("frame.comment")
local syndrome_field = Field.new("infiniband.aeth.syndrome")
local bth_field = Field.new("infiniband.bth.opcode")

-- IBTA RNR NAK timer encoding, in milliseconds, indexed by code + 1.
local RNR_MS = {
	655.36, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.12, 0.16, 0.24, 0.32, 0.48, 0.64, 0.96,
	1.28, 1.92, 2.56, 3.84, 5.12, 7.68, 10.24, 15.36, 20.48, 30.72, 40.96, 61.44, 81.92,
	122.88, 163.84, 245.76, 327.68, 491.52,
}
local NAK_NAMES = {
	[0] = "PSN sequence error", [1] = "invalid request", [2] = "remote access error",
	[3] = "remote operational error", [4] = "invalid RD request",
}
local NAK_KEYS = {
	psn_seq_error = 0, invalid_request = 1, remote_access_error = 2,
	remote_op_error = 3, invalid_rd_request = 4,
}

-- Splits "key=value key=\"quoted value\" ..." into a table.
local function parse_pairs(line)
	local out = {}
	local i, n = 1, #line
	while i <= n do
		local s, e, key = line:find("^%s*([%a_][%w_]*)=", i)
		if not s then break end
		i = e + 1
		local value
		if line:sub(i, i) == '"' then
			local buf = {}
			i = i + 1
			while i <= n do
				local c = line:sub(i, i)
				if c == "\\" and i < n then
					buf[#buf + 1] = line:sub(i + 1, i + 1)
					i = i + 2
				elseif c == '"' then
					i = i + 1
					break
				else
					buf[#buf + 1] = c
					i = i + 1
				end
			end
			value = table.concat(buf)
		else
			local vs, ve = line:find("^[^%s]*", i)
			value = line:sub(vs, ve)
			i = ve + 1
		end
		out[key] = value
	end
	return out
end

-- The annotation of this frame: its key/value table and the prose lines after it.
local function find_annotation()
	for _, fi in ipairs({ comment_field() }) do
		local text = tostring(fi.value)
		local first, rest = text:match("^rdmatrace:([^\n]*)\n?(.*)$")
		if first then
			return parse_pairs(first), rest
		end
	end
	return nil, nil
end

local function num(v)
	if v == nil then return nil end
	local s = tostring(v)
	if s:match("^0[xX]%x+$") then return tonumber(s:sub(3), 16) end
	return tonumber(s)
end

-- A decimal string as a UInt64 (Wireshark 4.0 has no UInt64.fromdecimal).
local function u64_from_decimal(str)
	local v = UInt64(0)
	for d in str:gmatch("%d") do
		v = v * UInt64(10) + UInt64(tonumber(d))
	end
	return v
end

local function add_uint(tree, field, v)
	local n = num(v)
	if n then tree:add(field, n) end
end

function proto.dissector(tvb, pinfo, tree)
	local ann, prose = find_annotation()
	local syn = syndrome_field()
	if not ann and not syn then
		return
	end
	local t = tree:add(proto, tvb(), "rdmatrace")
	local info = {}

	if ann then
		t:add(F.annotated, true)
		if ann.host then t:add(F.host, ann.host) end
		add_uint(t, F.pid, ann.pid)
		if ann.prog then t:add(F.prog, ann.prog) end
		add_uint(t, F.qp, ann.qp)
		add_uint(t, F.peer_qp, ann.peer_qp)
		if ann.wr_id and ann.wr_id:match("^%d+$") then
			t:add(F.wr_id, u64_from_decimal(ann.wr_id))
		end
		if ann.wr_opcode then t:add(F.wr_opcode, ann.wr_opcode) end
		add_uint(t, F.wr_len, ann.wr_len)
		add_uint(t, F.pkt_index, ann.pkt_index)
		add_uint(t, F.pkt_count, ann.pkt_count)
		local retrans = num(ann.retrans)
		if retrans then
			t:add(F.retrans, retrans)
			if retrans > 0 then
				t:add(F.retransmission, true)
				local cause = ann.retrans_cause or "unknown cause"
				t:add(F.retrans_cause, cause)
				t:add_proto_expert_info(E.retrans,
					string.format("Retransmission #%d (%s)", retrans, cause))
				info[#info + 1] = string.format("retransmission #%d", retrans)
			end
		end
		if ann.icrc then
			t:add(F.icrc, ann.icrc)
			if ann.icrc == "bad" then
				t:add(F.icrc_bad, true)
				t:add_proto_expert_info(E.icrc, "Bad ICRC: the packet was corrupted or altered")
				info[#info + 1] = "bad ICRC"
			end
		end
		if ann.ack_latency_us then
			local v = tonumber(ann.ack_latency_us)
			if v then t:add(F.ack_latency_us, v) end
		end
		add_uint(t, F.ack_frame, ann.ack_frame)
		add_uint(t, F.completion_frame, ann.completion_frame)
		if ann.copy_of then
			add_uint(t, F.copy_of, ann.copy_of)
			info[#info + 1] = "copy of frame " .. ann.copy_of
		end
		if ann.dup == "1" then t:add(F.dup, true) end
		if ann.out_of_order == "1" then t:add(F.out_of_order, true) end
		if ann.finding then
			t:add(F.finding, ann.finding)
			t:add_proto_expert_info(E.finding, "Evidence for finding " .. ann.finding)
		end
		if prose and #prose > 0 then
			for line in prose:gmatch("[^\n]+") do t:add(F.note, line) end
		end
	end

	-- Acknowledgement meaning: from the annotation when present, else from the AETH.
	local kind, wait, nak_code
	if ann and ann.ack then
		kind = ann.ack
		wait = tonumber(ann.rnr_wait_ms)
		nak_code = ann.nak_code and NAK_KEYS[ann.nak_code]
	end
	if syn then
		local s = syn.value
		local typ, val = math.floor(s / 32) % 4, s % 32
		if not kind then
			kind = (typ == 0 and "ack") or (typ == 1 and "rnr_nak") or (typ == 3 and "nak") or "reserved"
		end
		if typ == 1 and not wait then wait = RNR_MS[val + 1] end
		if typ == 3 and not nak_code then nak_code = val end
	end
	if kind then t:add(F.ack, kind) end
	if kind == "rnr_nak" then
		t:add(F.rnr_nak, true)
		if wait then
			t:add(F.rnr_wait_ms, wait)
			t:add_proto_expert_info(E.rnr, string.format(
				"RNR NAK: the receiver had no receive posted; the sender waits %.2f ms", wait))
			info[#info + 1] = string.format("RNR NAK %.2f ms", wait)
		end
	elseif kind == "nak" then
		local meaning = NAK_NAMES[nak_code] or "unknown NAK code"
		t:add(F.nak, meaning)
		if nak_code == 0 then
			t:add_proto_expert_info(E.nak_seq,
				"NAK PSN sequence error: a packet was lost or reordered; the requester resends from this PSN")
		else
			t:add_proto_expert_info(E.nak, "NAK: " .. meaning)
		end
		info[#info + 1] = "NAK " .. meaning
	end

	if #info > 0 and bth_field() then
		local sep = tostring(pinfo.cols.info):match("%s$") and "" or " "
		pinfo.cols.info:append(sep .. "[" .. table.concat(info, ", ") .. "]")
	end
end

register_postdissector(proto)
