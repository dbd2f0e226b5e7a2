"""Dashboard helpers for the Streamlit pages (navigation, graph rendering); UI only, they call core.service."""
