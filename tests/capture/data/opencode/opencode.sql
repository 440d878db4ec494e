-- Shape of OpenCode's own database (drizzle tables session/message/part, JSON in data).
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
INSERT INTO project VALUES ('prj_1', '/home/alice/src/shop', 1786500000000, 1786500000000);
INSERT INTO session VALUES ('ses_01JABC', 'prj_1', NULL, 'brave-otter', '/home/alice/src/shop', 'Cache headers', '1.2.3', 1786500000000, 1786500090000);
INSERT INTO message VALUES ('msg_u1', 'ses_01JABC', 1786500001000, 1786500001000, '{"role":"user","time":{"created":1786500001000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-5"}}');
INSERT INTO message VALUES ('msg_a1', 'ses_01JABC', 1786500002000, 1786500009000, '{"role":"assistant","time":{"created":1786500002000,"completed":1786500009000},"parentID":"msg_u1","modelID":"claude-sonnet-5","providerID":"anthropic","mode":"build","path":{"cwd":"/home/alice/src/shop","root":"/home/alice/src/shop"},"cost":0,"tokens":{"input":10,"output":20,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_1', 'msg_u1', 'ses_01JABC', 1786500001001, 1786500001001, '{"type":"text","text":"Set long cache headers on the static assets"}');
INSERT INTO part VALUES ('prt_2', 'msg_u1', 'ses_01JABC', 1786500001002, 1786500001002, '{"type":"text","text":"<system-reminder>injected by opencode</system-reminder>","synthetic":true}');
INSERT INTO part VALUES ('prt_3', 'msg_a1', 'ses_01JABC', 1786500003000, 1786500003000, '{"type":"text","text":"I set Cache-Control max-age=31536000 for /static in nginx.conf."}');
INSERT INTO part VALUES ('prt_4', 'msg_a1', 'ses_01JABC', 1786500004000, 1786500005000, '{"type":"tool","tool":"edit","callID":"call_1","state":{"status":"completed","input":{"filePath":"/home/alice/src/shop/nginx.conf","oldString":"a","newString":"b"},"output":"Edit applied","title":"nginx.conf","metadata":{},"time":{"start":1786500004000,"end":1786500005000}}}');
INSERT INTO part VALUES ('prt_5', 'msg_a1', 'ses_01JABC', 1786500006000, 1786500006000, '{"type":"step-finish","tokens":{"input":1}}');
