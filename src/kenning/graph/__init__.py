"""The knowledge graph: temporal facts, extraction from sessions, and session-end escalation."""
