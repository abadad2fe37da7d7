// Loopcraft: small progressive enhancements. Every page works without this file.
