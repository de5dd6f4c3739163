//! frontend
