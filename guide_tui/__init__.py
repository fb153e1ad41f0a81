"""guide-tui: answers trip-planning questions from the guides, and shows why."""
