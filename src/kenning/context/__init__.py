"""What a session is handed at its start: the wake-up bundle and the resume of the last work."""
